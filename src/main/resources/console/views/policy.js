// Policy: versions and their files, a diff between any two, editing a file or uploading a zip as a
// new version (validation messages with file:line and the policy tests), the dry-run with its
// decision diff, activate and roll back with a message, and the hash-chained history.
import { get, post, call } from '../api.js';
import { h, clear, load, table, pagedTable, field, select, fmtTime, tags, problemBox, notice } from '../dom.js';
import { lineDiff, hunks } from '../linediff.js';

export async function renderPolicy(box, { me }) {
  const admin = me.role === 'admin';
  const versionsBox = h('section', { class: 'panel', id: 'policy-versions' });
  const filesBox = h('section', { class: 'panel', id: 'policy-files' });
  const diffBox = h('section', { class: 'panel', id: 'policy-diff' });
  const editBox = h('section', { class: 'panel', id: 'policy-edit' });
  const dryRunBox = h('section', { class: 'panel', id: 'policy-dry-run' });
  const historyBox = h('section', { class: 'panel', id: 'policy-history' });
  clear(box, versionsBox, dryRunBox, editBox, diffBox, filesBox, historyBox);

  const files = new Map(); // version number → {path: text}
  const filesOf = async (v) => {
    if (!files.has(v)) files.set(v, (await get(`/policies/${v}`)).files);
    return files.get(v);
  };

  // Redraws every section from the API; keepEdit leaves the edit section (and its upload result) as it is.
  async function refresh(keepEdit = false, status = null) {
    const list = await get('/policies');
    const versions = list.versions.map((v) => v.version);
    const latest = versions[versions.length - 1];
    const options = list.versions.map((v) => [String(v.version), `${v.label}${v.version === list.active ? ' (active)' : ''} — ${v.message}`]);
    renderVersions(list, status);
    renderFiles(options, String(list.active));
    renderDiff(options, String(versions.length > 1 ? versions[versions.length - 2] : list.active), String(latest));
    if (admin) {
      if (!keepEdit) renderEdit(options, String(list.active));
      renderDryRun(options, String(latest), list.active);
    } else {
      clear(editBox, h('h2', {}, 'Change policy'), h('p', { class: 'muted' }, 'Uploading, dry-runs, activation and rollback need an admin token.'));
      clear(dryRunBox);
    }
    await load(historyBox, history);
  }

  function renderVersions(list, result) {
    const message = h('input', { id: 'change-message', name: 'message', size: 40, placeholder: 'why (kept in the history)' });
    const status = h('div', { id: 'change-status', 'aria-live': 'polite' }, result);
    const change = async (v, how) => {
      try {
        const r = await post(`/policies/${v}/${how}`, { message: message.value || null });
        const findings = r.fleetFindings || [];
        await refresh(true, notice(`${r.active.label} is active (was v${r.previousVersion})`
          + (findings.length ? `; live-fleet findings: ${findings.map(msg).join('; ')}` : '')));
      } catch (err) {
        clear(status, problemBox(err));
      }
    };
    clear(versionsBox, h('h2', {}, 'Versions'),
      admin ? h('div', { class: 'row' }, field('Message for activate or rollback', message)) : null,
      status,
      table('Policy versions', [
        { title: 'Version', value: (v) => [v.label, v.version === list.active ? h('strong', { class: 'good' }, ' active') : null] },
        { title: 'Message', value: (v) => v.message },
        { title: 'Author', value: (v) => v.author },
        { title: 'Created', value: (v) => fmtTime(v.createdAt) },
        { title: 'Parent', value: (v) => (v.parentVersion ? 'v' + v.parentVersion : '—') },
        { title: 'Hash', value: (v) => h('code', {}, v.contentHash.slice(0, 12)) },
        { title: 'Actions', value: (v) => (!admin || v.version === list.active ? '' : v.version > list.active
          ? h('button', { type: 'button', dataset: { version: v.version }, class: 'activate', onclick: () => change(v.version, 'activate') }, `Activate ${v.label}`)
          : h('button', { type: 'button', class: 'secondary rollback', dataset: { version: v.version }, onclick: () => change(v.version, 'rollback') }, `Roll back to ${v.label}`)) },
      ], list.versions, { id: 'version-table' }));
  }

  function renderFiles(options, active) {
    const version = select('version', options, active, { id: 'files-version' });
    const file = h('select', { id: 'files-path' });
    const text = h('pre', { id: 'files-text', tabindex: 0 });
    const show = async () => {
      const f = await filesOf(version.value);
      if (![...file.options].some((o) => o.value === file.value && file.dataset.version === version.value)) {
        clear(file, Object.keys(f).map((p) => h('option', { value: p }, p)));
        file.dataset.version = version.value;
      }
      text.textContent = f[file.value] || '';
    };
    version.addEventListener('change', () => { file.dataset.version = ''; show(); });
    file.addEventListener('change', show);
    clear(filesBox, h('h2', {}, 'Files'), h('div', { class: 'row' }, field('Version', version), field('File', file)), text);
    show();
  }

  function renderDiff(options, a, b) {
    const from = select('from', options, a, { id: 'diff-from' });
    const to = select('to', options, b, { id: 'diff-to' });
    const out = h('div', { id: 'diff-out' });
    const form = h('form', { class: 'row' }, field('From', from), field('To', to), h('button', { type: 'submit' }, 'Compare'));
    form.addEventListener('submit', (e) => { e.preventDefault(); load(out, () => diffView(from.value, to.value)); });
    clear(diffBox, h('h2', {}, 'Compare two versions'), form, out);
  }

  async function diffView(a, b) {
    const [fa, fb] = await Promise.all([filesOf(a), filesOf(b)]);
    const paths = [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort();
    const changed = paths.filter((p) => fa[p] !== fb[p]);
    if (changed.length === 0) return h('p', {}, `v${a} and v${b} have the same files.`);
    return h('div', { class: 'diff', tabindex: 0, 'aria-label': `Differences from v${a} to v${b}` }, changed.flatMap((p) => [
      h('div', { class: 'file' }, `${p}${!(p in fa) ? ' (added)' : !(p in fb) ? ' (removed)' : ''}`),
      ...hunks(lineDiff(fa[p], fb[p])).map((d) => h('div', { class: d.op === '+' ? 'add' : d.op === '-' ? 'del' : null }, `${d.op} ${d.text}`)),
    ]));
  }

  function renderEdit(options, active) {
    const base = select('base', options, active, { id: 'edit-base' });
    const file = h('select', { id: 'edit-path' });
    const text = h('textarea', { id: 'edit-text', spellcheck: 'false', 'aria-label': 'File content' });
    const message = h('input', { id: 'edit-message', size: 40, required: true, placeholder: 'what changed and why' });
    const out = h('div', { id: 'upload-result', 'aria-live': 'polite' });
    let edited = {};
    const fill = async () => {
      const f = await filesOf(base.value);
      const keep = file.value;
      clear(file, Object.keys(f).map((p) => h('option', { value: p, selected: p === keep }, p)));
      text.value = edited[file.value] ?? f[file.value] ?? '';
    };
    base.addEventListener('change', () => { edited = {}; fill(); });
    file.addEventListener('change', async () => { text.value = edited[file.value] ?? (await filesOf(base.value))[file.value] ?? ''; });
    text.addEventListener('input', () => { edited[file.value] = text.value; });
    const form = h('form', { id: 'edit-form' },
      h('div', { class: 'row' }, field('Start from', base), field('File', file)),
      text,
      h('div', { class: 'row' }, field('Message', message), h('button', { type: 'submit' }, 'Upload as a new version')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const all = { ...(await filesOf(base.value)), ...edited };
      await load(out, async () => {
        const r = await post('/policies', { message: message.value, files: all });
        edited = {};
        await refresh(true);
        return uploadResult(r, r.version.version);
      });
    });
    const zip = h('input', { type: 'file', id: 'zip-file', accept: '.zip,application/zip' });
    const zipMessage = h('input', { id: 'zip-message', size: 40, required: true });
    const zipForm = h('form', { class: 'row', id: 'zip-form' }, field('Rule set as a zip', zip), field('Message', zipMessage),
      h('button', { type: 'submit' }, 'Upload zip'));
    zipForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      const data = new FormData();
      data.append('archive', zip.files[0]);
      data.append('message', zipMessage.value);
      await load(out, async () => {
        const r = (await call('POST', '/policies', data)).body;
        await refresh(true);
        return uploadResult(r, r.version.version);
      });
    });
    clear(editBox, h('h2', {}, 'Change policy'), form, zipForm, out);
    fill();
  }

  function uploadResult(r, v) {
    const val = r.validation;
    return [
      notice(`Uploaded as ${r.version.label}: ${val.testSummary}`),
      h('button', { type: 'button', id: 'dry-run-uploaded', onclick: () => { dryRunBox.querySelector('#dry-run-candidate').value = String(v); dryRunBox.querySelector('form').requestSubmit(); } },
        `Dry-run ${r.version.label}`),
      messages(val.messages),
      tests(val.tests),
    ];
  }

  function renderDryRun(options, latest) {
    const candidate = select('candidate', options, latest, { id: 'dry-run-candidate' });
    const out = h('div', { id: 'dry-run-out', 'aria-live': 'polite' });
    const form = h('form', { class: 'row' }, field('Candidate version', candidate), h('button', { type: 'submit' }, 'Dry-run against the live pool'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      load(out, async () => dryRunView(await post('/policies/dry-run', { candidateVersion: candidate.value })));
      dryRunBox.scrollIntoView();
    });
    clear(dryRunBox, h('h2', {}, 'Dry-run'), h('p', { class: 'muted' }, 'The active policy and the candidate run the same pipeline on the live pool without committing; below is where they differ.'), form, out);
  }

  return refresh();
}

function msg(m) {
  return `${m.severity} ${m.stage}${m.file ? ` ${m.file}:${m.line}` : ''}: ${m.text}`;
}

function messages(list) {
  if (!list || list.length === 0) return h('p', { class: 'good' }, 'No validation messages.');
  return table('Validation messages', [
    { title: 'Severity', value: (m) => h('span', { class: m.severity === 'ERROR' ? 'bad' : null }, m.severity) },
    { title: 'Stage', value: (m) => m.stage },
    { title: 'Where', value: (m) => (m.file ? `${m.file}:${m.line}${m.column ? ':' + m.column : ''}` : '—') },
    { title: 'Message', value: (m) => m.text },
  ], list, { id: 'validation-messages' });
}

function tests(list) {
  return table('Policy tests', [
    { title: 'Test', value: (t) => t.name || t.file },
    { title: 'Result', value: (t) => h('span', { class: t.passed ? 'good' : 'bad' }, t.passed ? 'passed' : 'failed') },
    { title: 'Failures', value: (t) => [...t.failures, ...t.evaluationErrors].join('; ') || '—' },
  ], list || [], { id: 'policy-tests' });
}

function fate(f) {
  if (!f) return '—';
  return `${f.outcome}${f.pool ? ' in ' + f.pool : ''}${f.nodes && f.nodes.length ? ' on ' + f.nodes.join(', ') : ''}${f.reasonCode ? ' (' + f.reasonCode + ')' : ''}`;
}

function dryRunView(r) {
  const t = r.totals;
  const rows = Object.keys(t.active).map((k) => ({ k, a: t.active[k], c: t.candidate[k] }));
  return [
    h('p', { id: 'dry-run-verdict', class: r.safeToActivate ? 'good' : 'bad' },
      `Active ${r.activeVersion}, candidate ${r.candidateVersion}: ${r.safeToActivate ? 'safe to activate' : 'NOT safe to activate'}. `
      + `${r.requests.length} requests, ${r.leases.length} leases and ${r.devices.length} device profiles would change; `
      + `${r.newlyPreempted.length} newly preempted, ${r.newlyReclaimed.length} newly reclaimed.`),
    r.errors.length ? messages(r.errors) : null,
    h('h3', {}, 'Requests'),
    pagedTable('Requests whose fate changes', [
      { title: 'Request', value: (c) => c.requestId },
      { title: 'Tenant', value: (c) => c.tenantId },
      { title: 'Active policy', value: (c) => fate(c.before) },
      { title: 'Candidate', value: (c) => fate(c.after) },
      { title: 'Rules (candidate)', value: (c) => tags(c.after ? c.after.rules : []) },
    ], r.requests, 25, { id: 'dry-run-requests' }),
    h('h3', {}, 'Leases'),
    pagedTable('Leases preempted, reclaimed or expired differently', [
      { title: 'Lease', value: (c) => c.leaseId },
      { title: 'Tenant', value: (c) => c.tenantId },
      { title: 'Active policy', value: (c) => (c.before ? `${c.before.outcome} (${c.before.gpus} GPUs)` : 'keeps its GPUs') },
      { title: 'Candidate', value: (c) => (c.after ? `${c.after.outcome} (${c.after.gpus} GPUs)` : 'keeps its GPUs') },
      { title: 'Rules (candidate)', value: (c) => tags(c.after ? c.after.rules : []) },
    ], r.leases, 25, { id: 'dry-run-leases' }),
    h('h3', {}, 'Devices'),
    pagedTable('Device tier and label changes', [
      { title: 'Device', value: (c) => c.id },
      { title: 'What', value: (c) => c.aspect },
      { title: 'Active policy', value: (c) => c.before },
      { title: 'Candidate', value: (c) => c.after },
      { title: 'Rule (candidate)', value: (c) => c.ruleAfter || '—' },
    ], r.devices, 25, { id: 'dry-run-devices' }),
    h('h3', {}, 'Totals'),
    table('Totals', [
      { title: 'Figure', value: (x) => x.k },
      { title: 'Active policy', value: (x) => x.a, num: true },
      { title: 'Candidate', value: (x) => x.c, num: true },
    ], rows, { id: 'dry-run-totals' }),
    r.candidateValidation ? h('details', {}, h('summary', {}, 'Candidate validation'), messages(r.candidateValidation.messages)) : null,
  ];
}

async function history() {
  const [records, verify] = await Promise.all([get('/policies/history'), get('/policies/history/verify')]);
  return [
    h('h2', {}, 'History'),
    h('p', { id: 'history-verify', class: verify.intact ? 'good' : 'bad' }, verify.intact
      ? `Hash chain intact: ${verify.records} records.`
      : `Hash chain BROKEN at record ${verify.firstBrokenSeq}: ${verify.reason}`),
    table('Policy history', [
      { title: '#', value: (r) => r.seq, num: true },
      { title: 'Event', value: (r) => r.event },
      { title: 'Version', value: (r) => 'v' + r.version },
      { title: 'At', value: (r) => fmtTime(r.at) },
      { title: 'By', value: (r) => r.author },
      { title: 'Message', value: (r) => r.message || '' },
    ], records.slice().reverse(), { id: 'history-table' }),
  ];
}
