// Queue: queued requests per pool in order, why each waits (with every pool tried), and one
// request's /explain timeline: notice → queue → preempt → admit, with rules and policy version.
import { get, query } from '../api.js';
import { h, clear, load, table, field, fmtTime, tags } from '../dom.js';

export async function renderQueue(box, { params, navigate }) {
  const explainBox = h('section', { class: 'panel', id: 'explain', 'aria-labelledby': 'explain-h' });
  const requestInput = h('input', { id: 'explain-request', name: 'request', value: params.get('request') || '', size: 38 });
  const form = h('form', { class: 'row', id: 'explain-form' },
    field('Request id', requestInput), h('button', { type: 'submit' }, 'Explain'));
  form.addEventListener('submit', (e) => { e.preventDefault(); navigate('#/queue' + query({ request: requestInput.value })); });

  const queues = await get('/queues');
  const pools = Object.keys(queues);
  clear(box,
    h('section', { class: 'panel' }, h('h2', { id: 'explain-h' }, 'Explain a request'), form, explainBox),
    h('h2', {}, 'Queued requests'),
    pools.length === 0 ? h('p', { id: 'queue-empty' }, 'No request is waiting.') : null,
    pools.map((pool) => h('section', { 'aria-label': `Queue of pool ${pool}` },
      h('h3', {}, `Pool ${pool} (${queues[pool].length})`),
      table(`Queue of pool ${pool}`, [
        { title: 'Pos', value: (e) => e.position, num: true },
        { title: 'Request', value: (e) => h('a', { href: '#/queue' + query({ request: e.request.id }), class: 'explain-link' }, e.request.id) },
        { title: 'Tenant', value: (e) => e.request.tenantId },
        { title: 'GPUs', value: (e) => e.request.gpus, num: true },
        { title: 'Kind', value: (e) => e.request.kind },
        { title: 'Priority', value: (e) => e.request.priority, num: true },
        { title: 'Waiting since', value: (e) => fmtTime(e.request.createdAt) },
        { title: 'Why pending', value: (e) => whyPending(e.request.whyPending) },
      ], queues[pool], { class: 'queue-table', dataset: { pool } }))));

  if (params.get('request')) {
    await load(explainBox, () => explain(params.get('request')));
  } else {
    clear(explainBox, h('p', { class: 'muted' }, 'Pick a queued request, or enter any request id you may see.'));
  }
}

function whyPending(w) {
  if (!w) return '—';
  return [
    h('div', {}, h('strong', {}, w.blockedBy), w.reasonCode ? ` ${w.reasonCode}` : '', ': ', w.message || ''),
    w.ruleName ? h('div', { class: 'muted' }, `rule: ${w.ruleName}`) : null,
    w.until ? h('div', { class: 'muted' }, `until ${fmtTime(w.until)}`) : null,
    (w.perPool || []).length > 1 ? h('details', {}, h('summary', {}, `every pool tried (${w.perPool.length})`),
      h('ul', {}, w.perPool.map((p) => h('li', {}, `${p.pool}: ${p.blockedBy} ${p.reasonCode || ''} — ${p.message || ''}`,
        p.ruleName ? h('span', { class: 'muted' }, ` (rule: ${p.ruleName})`) : null)))) : null,
  ];
}

async function explain(id) {
  const e = await get(`/requests/${encodeURIComponent(id)}/explain`);
  const r = e.request;
  return [
    h('dl', { class: 'row', id: 'explain-summary' },
      ...[['Request', r.id], ['Tenant', r.tenantId], ['State', r.state], ['GPUs', r.gpus], ['Kind', r.kind],
        ['Queue position', e.queuePosition || '—'], ['Lease', e.lease ? `${e.lease.id} (${e.lease.state})` : '—'],
        ['Active policy', e.activePolicyVersion]].map(([k, v]) => h('div', {}, h('dt', { class: 'muted' }, k), h('dd', {}, String(v))))),
    r.whyPending ? h('div', {}, h('h3', {}, 'Why it waits'), whyPending(r.whyPending)) : null,
    h('h3', {}, 'Timeline'),
    h('ol', { class: 'timeline', id: 'explain-timeline' }, e.decisions.map((d) => h('li', { dataset: { action: d.action } },
      h('div', {}, h('span', { class: 'action' }, d.action), ` ${fmtTime(d.at)} · ${d.reasonCode || ''} · policy ${d.policyVersion || '—'}`),
      h('div', {}, d.message || ''),
      d.ruleNames.length ? h('div', {}, 'Rules: ', tags(d.ruleNames)) : null))),
  ];
}
