// Reports: one chart and its CSV download per entry of REPORTS. Each entry names its API path
// (under /api/v1), how its answer becomes bars (labels and series), and its CSV path; the view, the
// navigation entry and the browser test's chart check all follow from this list. The usage and cost
// reports of docs/reports.md; the other reports of issue 19 are added here as they land
// (docs/console.md, "Adding a report").
import { get, call } from '../api.js';
import { h, clear, load, problemBox } from '../dom.js';
import { barChart } from '../charts.js';
import { OPERATING_REPORTS } from './report-operating.js';

// The last 7 days by day, on whole UTC hours as the reports API asks (docs/reports.md, "Parameters").
function lastWeek() {
  const to = new Date();
  to.setUTCMinutes(0, 0, 0);
  to.setUTCHours(to.getUTCHours() + 1);
  const from = new Date(to.getTime() - 7 * 24 * 3600 * 1000);
  return `from=${from.toISOString().replace('.000Z', 'Z')}&to=${to.toISOString().replace('.000Z', 'Z')}&step=day`;
}

/** Rows ({bucket, group, <field>}) as one series per value of group[key], buckets along x. */
function pivot(rows, key, field) {
  const labels = [...new Set(rows.map((r) => r.bucket))].sort();
  const groups = [...new Set(rows.map((r) => (r.group && r.group[key]) || 'none'))].sort();
  const series = groups.map((g) => ({
    label: g,
    data: labels.map((b) => rows.filter((r) => r.bucket === b && ((r.group && r.group[key]) || 'none') === g)
      .reduce((sum, r) => sum + Number(r[field] || 0), 0)),
  }));
  return { labels: labels.map((b) => b.slice(0, 10)), series };
}

export const REPORTS = [
  {
    id: 'usage-tenant', title: 'GPU-hours by tenant, last 7 days',
    path: () => `/reports/usage?groupBy=tenant&${lastWeek()}`,
    chart: (d) => ({ ...pivot(d.rows, 'tenant', 'gpuHours'), options: { stacked: true, yTitle: 'GPU-hours' } }),
  },
  {
    id: 'usage-capacity', title: 'Fleet GPU-hours: allocated, unallocated, unhealthy',
    path: () => `/reports/usage?${lastWeek()}`,
    chart: (d) => {
      const rows = d.capacity || [];
      const labels = rows.map((r) => r.bucket.slice(0, 10));
      return {
        labels,
        series: [['allocated', 'allocatedGpuHours'], ['unallocated', 'unallocatedGpuHours'], ['unhealthy', 'unhealthyGpuHours']]
          .map(([label, field]) => ({ label, data: rows.map((r) => Number(r[field])) })),
        options: { stacked: true, yTitle: 'GPU-hours' },
      };
    },
  },
  {
    id: 'cost-tenant', title: 'Cost by tenant, last 7 days',
    path: () => `/reports/cost?groupBy=tenant&${lastWeek()}`,
    chart: (d) => ({ ...pivot(d.rows, 'tenant', 'cost'), options: { stacked: true, yTitle: costUnit(d) } }),
  },
  {
    id: 'cost-model', title: 'Cost by card model, last 7 days',
    path: () => `/reports/cost?groupBy=model&${lastWeek()}`,
    chart: (d) => ({ ...pivot(d.rows, 'model', 'cost'), options: { stacked: true, yTitle: costUnit(d) } }),
  },
].concat(OPERATING_REPORTS).map((r) => ({ ...r, csvPath: r.path }));

function costUnit(d) {
  const currencies = [...new Set((d.totals || []).map((t) => t.currency).filter(Boolean))];
  return currencies.length === 1 ? currencies[0] : 'cost';
}

export async function renderReports(box) {
  clear(box, REPORTS.map((r) => {
    const section = h('section', { class: 'panel', id: 'report-' + r.id, 'aria-label': r.title });
    load(section, async () => {
      const data = await get(r.path());
      const chart = r.chart(data);
      return [h('h2', {}, r.title), barChart(r.title, chart.labels, chart.series, chart.options || {}),
        r.csvPath ? h('button', { type: 'button', class: 'secondary', onclick: () => download(r, section) }, 'Download CSV') : null];
    });
    return section;
  }));
}

// The CSV comes through fetch with the token (a plain link would not carry it) and is saved from a blob.
async function download(report, section) {
  try {
    const res = await call('GET', report.csvPath(), undefined, { Accept: 'text/csv' });
    const text = res.text;
    const a = h('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })), download: `${report.id}.csv` });
    a.click();
    URL.revokeObjectURL(a.href);
  } catch (err) {
    section.append(problemBox(err));
  }
}
