// Replay: what the active policy and a stored version would have done to the service's recorded
// history over a window (docs/policy-replay.md). Starts a replay job, follows its progress (cancel
// stops it), then shows the summary with the deltas, the requests whose fate differs most with both
// explanations side by side, a time series per policy on one plot, and the job's CSV files.
// Admins and viewers (the API refuses a tenant token with 403).
import { get, post, call } from '../api.js';
import { h, clear, load, table, field, select, fmtTime, problemBox, notice } from '../dom.js';

const JOBS = '/policies/replay';
const POLL_MS = 1000;
const PALETTE = ['#0b57a4', '#d9730d', '#2e7d32', '#8e24aa', '#c62828', '#00838f'];
const SERIES = [['allocated', 'Allocated share of healthy GPUs'], ['effective', 'Effective utilisation'],
  ['fragmentation', 'Fragmentation'], ['queued', 'Requests waiting']];

let following = null; // the job whose progress is being read; a new render stops following the old one

export async function renderReplay(box) {
  const formBox = h('section', { class: 'panel', id: 'replay-ask' });
  const jobBox = h('section', { class: 'panel', id: 'replay-job', 'aria-live': 'polite' });
  const resultBox = h('div', { id: 'replay-result' });
  clear(box, formBox, jobBox, resultBox);
  following = null;
  const versions = await get('/policies');
  renderForm(formBox, versions, (job) => follow(job, jobBox, resultBox));
  const recent = await get(JOBS);
  if (recent.length) follow(recent[0], jobBox, resultBox);
}

function isoHour(date) {
  const d = new Date(date);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString().replace('.000Z', 'Z');
}

function renderForm(formBox, list, started) {
  const now = new Date();
  const candidates = list.versions.map((v) => [String(v.version),
    `${v.label}${v.version === list.active ? ' (active)' : ''} — ${v.message}`]);
  const latest = String(list.versions[list.versions.length - 1].version);
  const from = h('input', { name: 'from', id: 'replay-from', required: true, value: isoHour(now.getTime() - 24 * 3600 * 1000) });
  const to = h('input', { name: 'to', id: 'replay-to', required: true, value: now.toISOString().replace(/\.\d+Z$/, 'Z') });
  const version = select('version', candidates, latest, { id: 'replay-version' });
  const passEvery = h('input', { name: 'passEvery', id: 'replay-pass-every', placeholder: "the service's (5s)", size: 10 });
  const sweepEvery = h('input', { name: 'sweepEvery', id: 'replay-sweep-every', placeholder: "the service's (30s)", size: 10 });
  const status = h('div', {});
  const form = h('form', { id: 'replay-form' },
    h('h2', {}, 'Replay recorded history'),
    h('p', { class: 'muted' }, 'The requests that arrived in the window, as they were asked and as long as their jobs really ran, '
      + 'replayed under the active policy (the baseline) and a stored version, with the deltas between them.'),
    h('div', { class: 'row' },
      field('From (ISO instant)', from), field('To', to), field('Compare with', version),
      field('Pass every', passEvery), field('Sweep every', sweepEvery)),
    h('button', { type: 'submit', id: 'replay-start' }, 'Start replay'),
    status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clear(status);
    const settings = {};
    if (passEvery.value.trim()) settings.passEvery = passEvery.value.trim();
    if (sweepEvery.value.trim()) settings.sweepEvery = sweepEvery.value.trim();
    try {
      const job = await post(JOBS, {
        history: { from: from.value.trim(), to: to.value.trim() },
        policies: ['active', version.value],
        ...(Object.keys(settings).length ? { settings } : {}),
      });
      started(job);
    } catch (err) {
      clear(status, problemBox(err));
    }
  });
  clear(formBox, form);
}

// Reads the job every second until it ends, showing its progress, then its results.
async function follow(job, jobBox, resultBox) {
  following = job.id;
  clear(resultBox);
  for (;;) {
    drawJob(job, jobBox);
    if (['DONE', 'FAILED', 'CANCELLED'].includes(job.state)) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
    if (following !== job.id) return;
    try {
      job = await get(`${JOBS}/${encodeURIComponent(job.id)}`);
    } catch (err) {
      jobBox.append(problemBox(err));
      return;
    }
  }
  if (job.state === 'DONE') await load(resultBox, () => results(job));
}

function drawJob(job, jobBox) {
  const running = !['DONE', 'FAILED', 'CANCELLED'].includes(job.state);
  const pct = Math.round(100 * (job.progress || 0));
  clear(jobBox,
    h('h2', {}, 'Replay job'),
    h('p', {}, `${job.workload} · ${job.policies.join(' vs ')} · asked ${fmtTime(job.submittedAt)}`),
    h('p', { id: 'replay-state', dataset: { state: job.state } }, `${job.state}${job.running ? ' · replaying ' + job.running : ''}`),
    h('progress', { id: 'replay-progress', max: 100, value: pct, 'aria-label': 'Replay progress' }, `${pct} %`),
    h('span', { class: 'muted' }, ` ${pct} %`),
    running ? h('button', { type: 'button', class: 'secondary', id: 'replay-cancel', onclick: () => cancel(job, jobBox) }, 'Cancel') : null,
    job.error ? notice(job.error) : null);
}

async function cancel(job, jobBox) {
  try {
    await call('DELETE', `${JOBS}/${encodeURIComponent(job.id)}`);
  } catch (err) {
    jobBox.append(problemBox(err));
  }
}

async function results(job) {
  const [differences, series] = await Promise.all([csvOf(job, 'differences.csv'), csvOf(job, 'timeseries.csv')]);
  return [summaryPanel(job), differencesPanel(differences), chartPanel(job, series), filesPanel(job)];
}

// The summary as one row per metric and group: each policy's value, and each candidate's delta.
function summaryPanel(job) {
  const [baseline, ...others] = job.policies;
  const rows = new Map();
  for (const r of job.summary) {
    const key = `${r.metric}|${r.group}`;
    if (!rows.has(key)) rows.set(key, { metric: r.metric, group: r.group });
    rows.get(key)[r.policy] = r;
  }
  const num = (v) => (v === null || v === undefined || Number.isNaN(Number(v)) ? '—'
    : Number(v).toLocaleString('en', { maximumFractionDigits: 3 }));
  const columns = [
    { title: 'Metric', value: (r) => r.metric },
    { title: 'Group', value: (r) => r.group },
    ...job.policies.map((p) => ({ title: p, num: true, value: (r) => num(r[p] && r[p].value) })),
    ...others.map((p) => ({ title: `Δ ${p} − ${baseline}`, num: true, value: (r) => {
      const d = r[p] && r[p].delta;
      return d ? h('span', { class: 'delta' }, (d > 0 ? '+' : '') + num(d)) : num(d);
    } })),
  ];
  return h('section', { class: 'panel', id: 'replay-summary' }, h('h2', {}, 'Summary'),
    table(`Per policy and metric, with the delta against ${baseline}`, columns, [...rows.values()], { id: 'replay-summary-table' }));
}

function differencesPanel(rows) {
  const header = rows.header;
  const base = header[4].replace(/_outcome$/, '');
  const columns = [
    { title: 'Request', value: (r) => r.request },
    { title: 'Tenant', value: (r) => r.tenant },
    { title: 'GPUs', num: true, value: (r) => r.gpus },
    { title: `Under ${base}`, value: (r) => explanation(r[header[4]], r[header[5]], r[header[6]]) },
    { title: 'Under the candidate', value: (r) => explanation(r.candidate_outcome, r.candidate_wait_s, r.candidate_explanation) },
  ];
  return h('section', { class: 'panel', id: 'replay-differences' }, h('h2', {}, 'Requests whose fate differs most'),
    table('Both explanations side by side (rule names, policy version, reason)', columns, rows.records, { id: 'replay-differences-table' }));
}

function explanation(outcome, wait, text) {
  return h('div', {}, h('strong', {}, outcome), Number(wait) >= 0 ? ` after ${wait} s` : '', h('div', { class: 'muted' }, text));
}

// One plot per figure of timeseries.csv (chosen with the select), one line per policy.
function chartPanel(job, series) {
  const panel = h('section', { class: 'panel', id: 'replay-chart' }, h('h2', {}, 'Over time, per policy'));
  const which = select('series', SERIES.map(([k, t]) => [k, t]), 'allocated', { id: 'replay-series' });
  const box = h('div', { class: 'chart-box' });
  const draw = () => {
    const [key, title] = SERIES.find(([k]) => k === which.value);
    const times = [...new Set(series.records.map((r) => r.at))].sort();
    const datasets = job.policies.map((p, i) => ({
      label: p,
      data: times.map((t) => {
        const r = series.records.find((x) => x.policy === p && x.at === t);
        return r && r[key] !== '' ? Number(r[key]) : null;
      }),
      borderColor: PALETTE[i % PALETTE.length],
      backgroundColor: PALETTE[i % PALETTE.length],
      pointRadius: 2,
      spanGaps: true,
    }));
    lineChart(box, title, times.map((t) => t.replace('T', ' ').replace(/:\d\dZ$/, 'Z')), datasets);
  };
  which.addEventListener('change', draw);
  panel.append(field('Figure', which), box);
  requestAnimationFrame(draw);
  return panel;
}

function lineChart(box, title, labels, datasets) {
  if (!window.Chart) {
    clear(box, h('p', { class: 'problem', role: 'alert' }, 'Chart.js did not load; the numbers are in timeseries.csv.'));
    return;
  }
  const canvas = h('canvas', { role: 'img', 'aria-label': title, dataset: { chart: title } });
  clear(box, canvas);
  new window.Chart(canvas, {
    type: 'line',
    data: { labels, datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      plugins: { title: { display: true, text: title }, legend: { position: 'bottom' } },
      scales: { x: { ticks: { maxRotation: 60, autoSkip: true } }, y: { beginAtZero: true } },
    },
  });
}

function filesPanel(job) {
  return h('section', { class: 'panel', id: 'replay-files' }, h('h2', {}, 'Files'),
    h('ul', {}, job.files.filter((f) => f.endsWith('.csv')).map((f) => h('li', {},
      h('button', { type: 'button', class: 'secondary', dataset: { file: f }, onclick: (e) => download(job, f, e.target) }, `Download ${f}`)))));
}

async function fileText(job, name) {
  const res = await call('GET', `${JOBS}/${encodeURIComponent(job.id)}/files/${encodeURIComponent(name)}`);
  return res.text;
}

// The CSV comes through fetch with the token (a plain link would not carry it) and is saved from a blob.
async function download(job, name, button) {
  try {
    const text = await fileText(job, name);
    const a = h('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })), download: name });
    a.click();
    URL.revokeObjectURL(a.href);
  } catch (err) {
    button.after(problemBox(err));
  }
}

async function csvOf(job, name) {
  return records(parseCsv(await fileText(job, name)));
}

function records(rows) {
  const [header, ...body] = rows;
  return { header, records: body.map((r) => Object.fromEntries(header.map((k, i) => [k, r[i] ?? '']))) };
}

/** RFC 4180, as Commons CSV writes the job's files: quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; }
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell); rows.push(row); row = []; cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
  return rows;
}
