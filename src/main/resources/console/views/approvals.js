// Approvals: the requests awaiting approval that this token may decide (an org-admin's subtree, or
// all for a platform admin, as GET /approvals answers), why each was held, and approve or deny with
// a message. The service decides who may answer; a refusal (403, 409) is shown as it came.
import { get, post, query } from '../api.js';
import { h, clear, load, table, fmtTime, problemBox, notice } from '../dom.js';

export async function renderApprovals(box) {
  const status = h('div', { id: 'approval-status', 'aria-live': 'polite' });
  const list = h('section', {});
  clear(box, h('p', { class: 'muted' },
    'Requests held by an approval rule hold no GPUs and no queue position until approved; approving decides them at once.'),
  status, list);

  const refresh = () => load(list, async () => {
    const waiting = await get('/approvals');
    return table('Requests awaiting your approval', [
      { title: 'Request', value: (r) => h('a', { href: '#/queue' + query({ request: r.id }) }, r.id) },
      { title: 'Tenant', value: (r) => r.tenantId },
      { title: 'GPUs', value: (r) => r.gpus, num: true },
      { title: 'Kind', value: (r) => r.kind },
      { title: 'Pool', value: (r) => r.poolId || '' },
      { title: 'Why', value: (r) => h('ul', {}, (r.approval?.reasons || []).map((x) => h('li', {}, `${x.ruleName}: ${x.message}`))) },
      { title: 'Who may approve', value: (r) => r.approval?.approvers || '' },
      { title: 'Lapses', value: (r) => fmtTime(r.approval?.expiresAt) },
      { title: 'Answer', value: (r) => answer(r) },
    ], waiting, { id: 'approval-table' });
  });

  function answer(r) {
    const message = h('input', { size: 18, 'aria-label': `Message for request ${r.id}`, dataset: { request: r.id } });
    return h('div', { class: 'row' }, message,
      h('button', { type: 'button', dataset: { request: r.id, act: 'approve' },
        onclick: () => decide(r.id, 'approve', message.value) }, 'Approve'),
      h('button', { type: 'button', class: 'danger', dataset: { request: r.id, act: 'deny' },
        onclick: () => decide(r.id, 'deny', message.value) }, 'Deny'));
  }

  async function decide(id, verdict, message) {
    try {
      const answer = await post(`/approvals/${id}/${verdict}`, message ? { message } : {});
      const r = answer.request;
      clear(status, notice(`Request ${id} ${verdict === 'approve' ? 'approved' : 'denied'}: now ${r.state}`
        + (answer.lease ? ` with lease ${answer.lease.id}` : '')));
    } catch (err) {
      clear(status, problemBox(err));
    }
    await refresh();
  }
  await refresh();
}
