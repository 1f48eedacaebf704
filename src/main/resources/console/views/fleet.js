// Fleet: sites → clusters → nodes → GPUs, with filters, and allocated against measured (effective)
// use per pool and card model.
import { get, allPages, query } from '../api.js';
import { h, clear, load, table, pager, field, select, tags, gpus, formValues } from '../dom.js';
import { barChart } from '../charts.js';

const HEALTH = ['', 'HEALTHY', 'DEGRADED', 'UNHEALTHY', 'OFFLINE', 'UNKNOWN'];
const TIERS = ['', 'CRITICAL_RESERVED', 'TRAINING', 'DEV_SHARED', 'ELASTIC'];
const PAGE = 50;

export async function renderFleet(box, { params, navigate }) {
  const [sites, clusters, pools] = await Promise.all([get('/sites'), get('/clusters'), get('/pools')]);
  const f = Object.fromEntries(['site', 'cluster', 'node', 'pool', 'model', 'health', 'tier', 'label']
    .map((k) => [k, params.get(k) || '']));
  const form = h('form', { class: 'filters', id: 'fleet-filters', 'aria-label': 'Filter devices' },
    field('Site', select('site', ['', ...sites.map((s) => [s.id, `${s.id} (${s.name})`])], f.site)),
    field('Cluster', select('cluster', ['', ...clusters.filter((c) => !f.site || c.siteId === f.site)
      .map((c) => [c.id, `${c.id} (${c.name})`])], f.cluster)),
    field('Node', h('input', { name: 'node', value: f.node, size: 14 })),
    field('Pool', select('pool', ['', ...pools.map((p) => p.id)], f.pool)),
    field('Model', h('input', { name: 'model', value: f.model, size: 14, placeholder: 'H100-SXM-80G' })),
    field('Health', select('health', HEALTH, f.health)),
    field('Tier', select('tier', TIERS, f.tier)),
    field('Label', h('input', { name: 'label', value: f.label, size: 12, placeholder: 'nvlink or k=v' })),
    h('button', { type: 'submit' }, 'Apply'),
    h('button', { type: 'button', class: 'secondary', onclick: () => navigate('#/fleet') }, 'Clear'));
  form.addEventListener('submit', (e) => { e.preventDefault(); navigate('#/fleet' + query(formValues(form))); });

  const usage = h('section', { class: 'panel', 'aria-labelledby': 'usage-h' });
  const nodes = h('section', { 'aria-labelledby': 'nodes-h' });
  const devices = h('section', { 'aria-labelledby': 'devices-h' });
  clear(box, hierarchy(sites, clusters, navigate), form, usage, nodes, devices);

  const deviceQuery = { model: f.model, node: f.node, cluster: f.cluster, site: f.site, pool: f.pool,
    health: f.health, label: f.label, tier: f.tier };
  const nodeQuery = { cluster: f.cluster, site: f.site, label: f.label, tier: f.tier };
  await Promise.all([
    load(usage, () => usageByPoolAndModel(deviceQuery)),
    pagedFromApi(nodes, 'nodes-h', 'Nodes', (page) => get('/nodes' + query({ ...nodeQuery, page, size: PAGE })), nodeColumns(navigate)),
    pagedFromApi(devices, 'devices-h', 'GPUs', (page) => get('/devices' + query({ ...deviceQuery, page, size: PAGE })), deviceColumns),
  ]);
}

function hierarchy(sites, clusters, navigate) {
  return h('nav', { class: 'panel', 'aria-label': 'Sites and clusters' },
    h('ul', {}, sites.map((s) => h('li', {},
      h('a', { href: '#/fleet' + query({ site: s.id }) }, `${s.name} (${s.id}, ${s.region || 'no region'})`),
      h('ul', {}, clusters.filter((c) => c.siteId === s.id).map((c) => h('li', {},
        h('a', { href: '#/fleet' + query({ site: s.id, cluster: c.id }) }, `${c.name} (${c.id})`),
        c.interconnect ? h('span', { class: 'muted' }, ` · ${c.interconnect}`) : null,
        syncState(c.sync))))))));
}

/** A list the API pages ({items, page, size, total}), with its own pager. */
async function pagedFromApi(section, headingId, title, fetchPage, columns) {
  const show = (page) => load(section, async () => {
    const p = await fetchPage(page);
    const pages = Math.max(1, Math.ceil(p.total / PAGE));
    return [h('h2', { id: headingId }, `${title} (${p.total})`), table(title, columns, p.items),
      pages > 1 ? pager(page, pages, p.total, show) : null];
  });
  await show(0);
}

function nodeColumns(navigate) {
  return [
    { title: 'Node', value: (n) => h('a', { href: '#/fleet' + query({ node: n.id }) }, n.id) },
    { title: 'Site', value: (n) => n.siteId },
    { title: 'Cluster', value: (n) => n.clusterId },
    { title: 'Rack', value: (n) => n.rack || '—' },
    { title: 'GPUs', value: (n) => n.gpus, num: true },
    { title: 'Tiers', value: (n) => Object.entries(n.tiers || {}).map(([t, c]) => `${t} ${c}`).join(', ') || '—' },
    { title: 'Labels', value: (n) => tags(Object.entries(n.labels || {}).map(([k, v]) => `${k}=${v}`)) },
    { title: 'Last report', value: (n) => n.report
      ? h('span', { class: n.report.stale ? 'bad' : null }, `${n.report.ageSeconds} s ago${n.report.stale ? ' (stale)' : ''}`)
      : h('span', { class: 'muted' }, 'no agent') },
  ];
}

const deviceColumns = [
  { title: 'GPU', value: (d) => d.id },
  { title: 'Model', value: (d) => d.model },
  { title: 'Node', value: (d) => d.nodeId },
  { title: 'Pool', value: (d) => d.poolId || '—' },
  { title: 'Health', value: (d) => h('span', { class: d.health === 'HEALTHY' ? null : 'bad' }, d.health) },
  { title: 'Tier', value: (d) => d.profile && d.profile.tier
    ? [d.profile.tier, d.profile.matchesPool === false ? h('span', { class: 'warn' }, ' ≠ pool') : null] : '—' },
  { title: 'Labels', value: (d) => tags([...Object.entries(d.labels || {}).map(([k, v]) => `${k}=${v}`), ...(d.profile ? d.profile.labels : [])]) },
  { title: 'Allocated', value: (d) => gpus(d.allocatedMilli), num: true },
  { title: 'Measured activity', value: (d) => d.activity && d.activity.value !== null
    ? `${Math.round(d.activity.value * 100)} % (${d.activity.ageSeconds} s ago)` : '—', num: true },
];

/**
 * Allocated GPUs (what leases hold) against effective ones (the activity node agents measured on
 * the same cards) per pool and model, over the devices the filters select.
 */
async function usageByPoolAndModel(deviceQuery) {
  const all = await allPages('/devices' + query(deviceQuery));
  const groups = new Map();
  for (const d of all) {
    const key = `${d.poolId || 'unassigned'} · ${d.model}`;
    const g = groups.get(key) || { key, gpus: 0, allocated: 0, effective: 0, measured: 0 };
    g.gpus += 1;
    g.allocated += d.allocatedMilli / 1000;
    if (d.activity && d.activity.value !== null) {
      g.measured += 1;
      g.effective += d.activity.value;
    }
    groups.set(key, g);
  }
  const rows = [...groups.values()].sort((a, b) => a.key.localeCompare(b.key));
  const round = (x) => Math.round(x * 100) / 100;
  return [
    h('h2', { id: 'usage-h' }, 'Allocated and effective use per pool and model'),
    h('p', { class: 'muted' }, 'Allocated: GPUs held by leases. Effective: GPUs busy as node agents measured them (cards without a recent measurement count as 0).'),
    barChart('GPUs allocated and effectively used', rows.map((r) => r.key), [
      { label: 'GPUs', data: rows.map((r) => r.gpus) },
      { label: 'Allocated', data: rows.map((r) => round(r.allocated)) },
      { label: 'Effective', data: rows.map((r) => round(r.effective)) },
    ], { yTitle: 'GPUs' }),
    table('Use per pool and model', [
      { title: 'Pool · model', value: (r) => r.key },
      { title: 'GPUs', value: (r) => r.gpus, num: true },
      { title: 'Allocated', value: (r) => round(r.allocated), num: true },
      { title: 'Effective', value: (r) => round(r.effective), num: true },
      { title: 'Measured cards', value: (r) => `${r.measured} of ${r.gpus}`, num: true },
    ], rows, { id: 'usage-table' }),
  ];
}

/** Where an imported cluster's inventory comes from and how fresh it is; a failing source says why. */
function syncState(sync) {
  if (!sync) return null;
  const age = sync.ageSeconds == null ? '' : `, ${sync.ageSeconds} s ago`;
  return sync.state === 'FAILING'
    ? h('span', { class: 'problem-inline', role: 'note' }, ` · ${sync.source} sync FAILING: ${sync.error || 'no detail'} (last good state kept)`)
    : h('span', { class: 'muted' }, ` · synced from ${sync.source}${age}`);
}
