// The REST API, called with the signed-in bearer token. The token lives in sessionStorage: it is
// gone when the tab closes and is never in a cookie, so other sites cannot make the browser use it
// (docs/console.md, "Security"). Every answer that is not 2xx becomes an ApiError carrying the
// service's RFC 7807 problem, which views show as is.
const KEY = 'gpupool.token';

export const session = {
  token: () => sessionStorage.getItem(KEY),
  signIn: (token) => sessionStorage.setItem(KEY, token),
  signOut: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** One call; {@code path} is below /api/v1 or a full /api/... path (a Link header's). */
export async function call(method, path, body, extraHeaders = {}) {
  const headers = { Accept: 'application/json, application/problem+json', ...extraHeaders };
  const token = session.token();
  if (token) headers.Authorization = 'Bearer ' + token;
  let payload;
  if (body instanceof FormData) {
    payload = body;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const url = path.startsWith('/api/') ? path : '/api/v1' + path;
  let res;
  try {
    res = await fetch(url, { method, headers, body: payload, credentials: 'omit', cache: 'no-store' });
  } catch (e) {
    throw new ApiError(0, { title: 'Service unreachable', detail: `No answer from the service (${e.message})` });
  }
  const text = await res.text();
  let json = null;
  if (text) {
    try { json = JSON.parse(text); } catch { json = null; }
  }
  if (!res.ok) {
    const problem = json && typeof json === 'object' && !Array.isArray(json) ? json
      : { title: res.statusText || 'Error', status: res.status, detail: `HTTP ${res.status}: ${text.slice(0, 300)}` };
    throw new ApiError(res.status, problem);
  }
  return { body: json, text, link: nextLink(res.headers.get("Link")), status: res.status };
}

export const get = (path) => call('GET', path).then((r) => r.body);
export const post = (path, body) => call('POST', path, body === undefined ? {} : body).then((r) => r.body);

/** Every page of a paged list ({items, total, page, size}), at most {@code limit} items. */
export async function allPages(path, limit = 20000) {
  const sep = path.includes('?') ? '&' : '?';
  const items = [];
  for (let page = 0; ; page++) {
    const p = await get(`${path}${sep}size=1000&page=${page}`);
    items.push(...p.items);
    if (p.items.length === 0 || items.length >= p.total || items.length >= limit) return items;
  }
}

function nextLink(header) {
  if (!header) return null;
  const m = /<([^>]+)>\s*;\s*rel="next"/.exec(header);
  return m ? m[1] : null;
}

/** A query string from an object, leaving out empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && String(v).trim() !== '') q.set(k, String(v).trim());
  }
  const s = q.toString();
  return s ? '?' + s : '';
}
