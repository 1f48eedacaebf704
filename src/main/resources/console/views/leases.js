// Leases: the ones the token may see (a tenant's own, an admin's all, as the API answers), with
// renew and release for those still holding GPUs.
import { get, post, query } from '../api.js';
import { h, clear, load, pagedTable, field, select, fmtTime, formValues, problemBox, notice } from '../dom.js';

const STATES = ['', 'ACTIVE', 'PREEMPTING', 'RELEASED', 'EXPIRED', 'PREEMPTED', 'RECLAIMED'];

export async function renderLeases(box, { me, params, navigate }) {
  const tenant = params.get('tenant') || '';
  const state = params.has('state') ? params.get('state') : 'ACTIVE';
  const form = h('form', { class: 'filters', id: 'lease-filters' },
    field('Tenant', h('input', { name: 'tenant', value: tenant, size: 14 })),
    field('State', select('state', STATES, state)),
    h('button', { type: 'submit' }, 'Apply'));
  form.addEventListener('submit', (e) => { e.preventDefault(); navigate('#/leases?' + new URLSearchParams(formValues(form))); });
  const status = h('div', { id: 'lease-status', 'aria-live': 'polite' });
  const list = h('section', {});
  clear(box, form, status, list);
  const mayAct = me.role === 'admin' || me.role === 'tenant';
  const refresh = () => load(list, async () => {
    const leases = await get('/leases' + query({ tenant, state }));
    return pagedTable('Leases', [
      { title: 'Lease', value: (l) => h('code', {}, l.id) },
      { title: 'Tenant', value: (l) => l.tenantId },
      { title: 'Pool', value: (l) => l.poolId },
      { title: 'State', value: (l) => l.state },
      { title: 'Kind', value: (l) => l.kind },
      { title: 'GPUs', value: (l) => l.shares.reduce((s, x) => s + x.milli, 0) / 1000, num: true },
      { title: 'Devices', value: (l) => l.shares.map((s) => s.deviceId).join(', ') },
      { title: 'Borrowed', value: (l) => (l.borrowed ? 'yes' : 'no') },
      { title: 'Expires', value: (l) => fmtTime(l.expiresAt) },
      { title: 'Deadline', value: (l) => fmtTime(l.deadline) },
      { title: 'Request', value: (l) => h('a', { href: '#/queue' + query({ request: l.requestId }) }, 'explain') },
      { title: 'Actions', value: (l) => (mayAct && (l.state === 'ACTIVE' || l.state === 'PREEMPTING') ? actions(l) : '') },
    ], leases, 50, { id: 'lease-table' });
  });

  function actions(l) {
    const ttl = h('input', { type: 'number', min: 1, value: 3600, size: 6, 'aria-label': `TTL seconds for lease ${l.id}` });
    return h('div', { class: 'row' },
      ttl,
      h('button', { type: 'button', class: 'secondary', 'aria-label': `Renew lease ${l.id}`, dataset: { lease: l.id, act: 'renew' },
        onclick: () => act(`/leases/${l.id}/renew`, { ttlSeconds: Number(ttl.value) }, `Lease ${l.id} renewed for ${ttl.value} s`) }, 'Renew'),
      h('button', { type: 'button', class: 'danger', 'aria-label': `Release lease ${l.id}`, dataset: { lease: l.id, act: 'release' },
        onclick: () => act(`/leases/${l.id}/release`, {}, `Lease ${l.id} released`) }, 'Release'));
  }

  async function act(path, body, done) {
    try {
      const lease = await post(path, body);
      clear(status, notice(`${done}: now ${lease.state}`));
    } catch (err) {
      clear(status, problemBox(err));
    }
    await refresh();
  }
  await refresh();
}
