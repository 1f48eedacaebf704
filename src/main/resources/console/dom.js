// Building the page. Text always goes in as text nodes (never parsed as HTML), so a value from the API
// such as a tenant name or a rule name can never become markup or script.

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value') el.value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  add(el, children);
  return el;
}

export function add(el, children) {
  for (const c of [children].flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el, ...children) {
  el.replaceChildren();
  return add(el, children);
}

/** A problem (RFC 7807) as the service sent it: title, status, detail, and each of errors. */
export function problemBox(err) {
  const p = err && err.problem ? err.problem : { title: 'Error', detail: String(err && err.message || err) };
  return h('div', { class: 'problem', role: 'alert' },
    h('strong', {}, `${p.title || 'Error'}${p.status ? ` (${p.status})` : ''}: `),
    p.detail || '',
    Array.isArray(p.errors) && p.errors.length ? h('ul', {}, p.errors.map((e) => h('li', {}, e))) : null);
}

export function notice(text) {
  return h('div', { class: 'notice', role: 'status' }, text);
}

/**
 * A table. columns: [{title, value: row => text|Node, num?}]. caption names it for screen readers.
 */
export function table(caption, columns, rows, attrs = {}) {
  return h('div', { class: 'table-wrap' },
    h('table', attrs,
      h('caption', { class: 'muted' }, caption),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null }, c.title)))),
      h('tbody', {}, rows.length === 0
        ? h('tr', {}, h('td', { colspan: columns.length, class: 'muted' }, 'Nothing to show.'))
        : rows.map((r) => h('tr', {}, columns.map((c) => h('td', { class: c.num ? 'num' : null }, c.value(r))))))));
}

/**
 * A table paged in the browser, for lists the API returns whole. Returns an element that redraws
 * itself; {@code pageSize} rows at a time.
 */
export function pagedTable(caption, columns, rows, pageSize = 50, attrs = {}) {
  const box = h('div', {});
  let page = 0;
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const draw = () => clear(box,
    table(caption, columns, rows.slice(page * pageSize, (page + 1) * pageSize), attrs),
    pages > 1 ? pager(page, pages, rows.length, (p) => { page = p; draw(); }) : null);
  draw();
  return box;
}

/** Previous/next buttons and "page i of n" for any paged list. */
export function pager(page, pages, total, go) {
  return h('div', { class: 'pager' },
    h('button', { type: 'button', class: 'secondary', disabled: page <= 0, onclick: () => go(page - 1) }, 'Previous'),
    h('span', { 'aria-live': 'polite' }, `Page ${page + 1} of ${pages} (${total} in all)`),
    h('button', { type: 'button', class: 'secondary', disabled: page >= pages - 1, onclick: () => go(page + 1) }, 'Next'));
}

/** Runs an async loader into a box: "Loading…", then its content, or the problem it met. */
export async function load(box, loader) {
  box.setAttribute('aria-busy', 'true');
  clear(box, h('p', { class: 'muted' }, 'Loading…'));
  try {
    const content = await loader();
    clear(box, content);
  } catch (err) {
    clear(box, problemBox(err));
  } finally {
    box.removeAttribute('aria-busy');
  }
}

export function field(labelText, input) {
  return h('label', {}, labelText, input);
}

export function select(name, options, value, attrs = {}) {
  return h('select', { name, ...attrs }, options.map((o) => {
    const [v, t] = Array.isArray(o) ? o : [o, o === '' ? 'any' : o];
    return h('option', { value: v, selected: v === value }, t);
  }));
}

export function tags(list) {
  return (list || []).map((t) => h('span', { class: 'tag' }, t));
}

export function fmtTime(iso) {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—';
}

export function gpus(milli) {
  return (milli / 1000).toLocaleString('en', { maximumFractionDigits: 2 });
}

/** Values of a form's named fields, as an object. */
export function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}
