// Pools and quotas: each pool, and per tenant and pool (and card model) the guarantee, the limits,
// what its leases hold now and how much of that is borrowed, with the API's over-commit warnings.
import { get, allPages } from '../api.js';
import { h, clear, table } from '../dom.js';

export async function renderPools(box) {
  const [pools, quotas, leases, devices] = await Promise.all([
    get('/pools'), get('/quotas'), get('/leases?state=ACTIVE'), allPages('/devices'),
    ]).then(async ([p, q, active, d]) => [p, q, active.concat(await get('/leases?state=PREEMPTING')), d]);
  const model = new Map(devices.map((d) => [d.id, d.model]));
  const size = new Map();
  for (const d of devices) if (d.poolId) size.set(d.poolId, (size.get(d.poolId) || 0) + 1);

  const held = (q, borrowedOnly) => leases
    .filter((l) => l.tenantId === q.tenantId && l.poolId === q.poolId && (!borrowedOnly || l.borrowed))
    .flatMap((l) => l.shares)
    .filter((s) => q.model === '*' || model.get(s.deviceId) === q.model)
    .reduce((sum, s) => sum + s.milli / 1000, 0);
  const fmt = (x) => Math.round(x * 100) / 100;

  clear(box,
    h('h2', {}, 'Pools'),
    table('Pools', [
      { title: 'Pool', value: (p) => p.id },
      { title: 'Name', value: (p) => p.name },
      { title: 'Tier', value: (p) => p.tier },
      { title: 'Placement', value: (p) => p.placementStrategy },
      { title: 'Sharing', value: (p) => (p.sharingAllowed ? 'yes' : 'no') },
      { title: 'GPUs', value: (p) => size.get(p.id) || 0, num: true },
      { title: 'Description', value: (p) => p.description || '' },
    ], pools),
    h('h2', {}, 'Quotas'),
    h('p', { class: 'muted' }, 'In use: GPUs the tenant\'s active and preempting leases hold in the pool (of the model, for a model quota); borrowed: those of its leases placed beyond its guarantee; lent: GPUs of its idle guarantee that other tenants\' borrowed leases hold now (the API\'s lentGpus).'),
    table('Quotas', [
      { title: 'Tenant', value: (q) => q.tenantId },
      { title: 'Pool', value: (q) => q.poolId },
      { title: 'Model', value: (q) => q.model },
      { title: 'Guaranteed', value: (q) => q.guaranteedGpus, num: true },
      { title: 'Borrowing limit', value: (q) => q.borrowingLimit, num: true },
      { title: 'Lending limit', value: (q) => q.lendingLimit, num: true },
      { title: 'In use', value: (q) => fmt(held(q, false)), num: true },
      { title: 'Borrowed', value: (q) => fmt(held(q, true)), num: true },
      { title: 'Lent', value: (q) => fmt(Number(q.lentGpus || 0)), num: true },
      { title: 'Over-commit', value: (q) => (q.overcommitted
        ? h('span', { class: 'warn' }, `pool ${q.overcommitted.poolId}${q.overcommitted.model !== '*' ? ' / ' + q.overcommitted.model : ''}: `
          + `${q.overcommitted.guaranteedGpus} guaranteed on ${q.overcommitted.poolGpus} GPUs (${q.overcommitted.overByGpus} over)`)
        : '—') },
    ], quotas, { id: 'quota-table' }));
}
