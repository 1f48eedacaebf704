// Reports: one chart and its CSV download per entry of REPORTS. Each entry names its API path
// (under /api/v1), how its answer becomes bars (labels and series), and its CSV path; the view, the
// navigation entry and the browser test's chart check all follow from this list. Empty until the
// service serves report endpoints (docs/console.md, "Adding a report").
import { get, call } from '../api.js';
import { h, clear, load, problemBox } from '../dom.js';
import { barChart } from '../charts.js';

export const REPORTS = [];

export async function renderReports(box) {
  clear(box, REPORTS.map((r) => {
    const section = h('section', { class: 'panel', id: 'report-' + r.id, 'aria-label': r.title });
    load(section, async () => {
      const data = await get(r.path);
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
    const res = await call('GET', report.csvPath, undefined, { Accept: 'text/csv' });
    const text = res.text;
    const a = h('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })), download: `${report.id}.csv` });
    a.click();
    URL.revokeObjectURL(a.href);
  } catch (err) {
    section.append(problemBox(err));
  }
}
