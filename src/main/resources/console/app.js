// The console: sign-in, navigation, and one view per hash route (#/fleet, #/queue?request=…).
// Which views appear follows the token's role, for convenience only: what a token may read and do
// is decided by the API on every call, and a view shows the API's refusal as it is.
import { session, get, ApiError } from './api.js';
import { h, clear, problemBox } from './dom.js';
import { VIEWS } from './views/index.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
let me = null;

function signInForm(err) {
  const input = h('input', { id: 'token', name: 'token', type: 'password', autocomplete: 'off', required: true,
    'aria-describedby': 'token-help' });
  const form = h('form', { class: 'signin panel', id: 'signin' },
    h('h1', {}, 'Sign in'),
    h('label', { for: 'token' }, 'Bearer token'),
    input,
    h('p', { id: 'token-help', class: 'muted' },
      'The token an admin issued you (POST /api/v1/tokens). It is kept in this tab only and sent as the Authorization header.'),
    err ? problemBox(err) : null,
    h('button', { type: 'submit' }, 'Sign in'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    session.signIn(input.value.trim());
    await start();
  });
  clear(nav);
  clear(who);
  clear(main, form);
  input.focus();
}

async function start() {
  if (!session.token()) return signInForm();
  try {
    me = await get('/tokens/me');
  } catch (err) {
    session.signOut();
    return signInForm(err);
  }
  me.role = String(me.role).toLowerCase();
  clear(who,
    h('span', { id: 'identity' }, `${me.name} · ${me.role}${me.tenantId ? ' · tenant ' + me.tenantId : ''}`),
    h('button', { type: 'button', id: 'signout', onclick: () => { session.signOut(); me = null; location.hash = ''; signInForm(); } }, 'Sign out'));
  if (!location.hash || location.hash === '#/') location.hash = '#/' + visibleViews()[0].id;
  else route();
}

function visibleViews() {
  return VIEWS.filter((v) => !v.roles || v.roles.includes(me.role));
}

function parseHash() {
  const [path, q] = location.hash.replace(/^#\/?/, '').split('?');
  return { id: path || visibleViews()[0].id, params: new URLSearchParams(q || '') };
}

async function route() {
  if (!me) return;
  const { id, params } = parseHash();
  const views = visibleViews();
  clear(nav, views.map((v) => h('a', { href: '#/' + v.id, id: 'nav-' + v.id, 'aria-current': v.id === id ? 'page' : null }, v.title)));
  const view = VIEWS.find((v) => v.id === id);
  document.title = `${view ? view.title : 'Not found'} · gpupool console`;
  if (!view) {
    clear(main, problemBox(new ApiError(404, { title: 'Not found', detail: `No view '${id}'` })));
    return;
  }
  const box = h('div', { id: 'view-' + view.id, 'aria-busy': 'true' });
  clear(main, h('h1', {}, view.title), box);
  try {
    await view.render(box, { me, params, navigate: (hash) => { location.hash = hash; } });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      session.signOut();
      return signInForm(err);
    }
    clear(box, problemBox(err));
  } finally {
    box.removeAttribute('aria-busy');
  }
}

window.addEventListener('hashchange', route);
start();
