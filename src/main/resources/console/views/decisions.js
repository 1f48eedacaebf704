// The decision log, filtered by the API (request, lease, tenant, action, a part of a rule name, a
// time window), which pages by cursor and shows a tenant only its own entries; "Load more" follows
// the API's next link.
import { call, query } from '../api.js';
import { h, clear, table, field, select, fmtTime, tags, formValues, problemBox } from '../dom.js';

const ACTIONS = ['', 'ADMIT', 'QUEUE', 'REJECT', 'PREEMPT', 'NOTICE', 'RECLAIM', 'EXPIRE', 'RELEASE', 'RENEW', 'CANCEL', 'INVENTORY'];
const LIMIT = 200;

export async function renderDecisions(box, { params, navigate }) {
  const p = Object.fromEntries(['request', 'lease', 'since', 'tenant', 'action', 'rule', 'until'].map((k) => [k, params.get(k) || '']));
  const form = h('form', { class: 'filters', id: 'decision-filters' },
    field('Request', h('input', { name: 'request', value: p.request, size: 36 })),
    field('Lease', h('input', { name: 'lease', value: p.lease, size: 36 })),
    field('Since (ISO-8601)', h('input', { name: 'since', value: p.since, size: 22, placeholder: 'last hour' })),
    field('Until', h('input', { name: 'until', value: p.until, size: 22 })),
    field('Tenant', h('input', { name: 'tenant', value: p.tenant, size: 12 })),
    field('Action', select('action', ACTIONS, p.action)),
    field('Rule contains', h('input', { name: 'rule', value: p.rule, size: 20 })),
    h('button', { type: 'submit' }, 'Apply'));
  form.addEventListener('submit', (e) => { e.preventDefault(); navigate('#/decisions' + query(formValues(form))); });

  const loaded = [];
  let next = '/decisions' + query({ ...p, limit: LIMIT });
  const out = h('section', { 'aria-live': 'polite' });
  clear(box, form, out);

  async function more() {
    try {
      const r = await call('GET', next);
      loaded.push(...r.body);
      next = r.link;
    } catch (err) {
      clear(out, problemBox(err));
      return;
    }
    clear(out,
      h('p', { class: 'muted' }, `${loaded.length} entries${next ? '; more in the log' : ''}.`),
      table('Decision log', [
        { title: '#', value: (d) => d.id, num: true },
        { title: 'At', value: (d) => fmtTime(d.at) },
        { title: 'Action', value: (d) => d.action },
        { title: 'Request', value: (d) => (d.requestId ? h('a', { href: '#/queue' + query({ request: d.requestId }) }, d.requestId) : '—') },
        { title: 'Lease', value: (d) => d.leaseId || '—' },
        { title: 'Tenant', value: (d) => d.tenantId || '—' },
        { title: 'Reason', value: (d) => d.reasonCode || '—' },
        { title: 'Rules', value: (d) => tags(d.ruleNames) },
        { title: 'Policy', value: (d) => d.policyVersion || '—' },
        { title: 'Message', value: (d) => d.message || '' },
      ], loaded, { id: 'decision-table' }),
      next ? h('button', { type: 'button', id: 'decisions-more', onclick: more }, 'Load more') : null);
  }
  await more();
}
