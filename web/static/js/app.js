// The app shell: hash router (#/view/param), login state, navigation.

import { api, clearSession, getToken, getUser, onOffline, onUnauthorized, setSession, updateUser } from './api.js';
import { alertBox, busy, clear, field, h, toast } from './ui.js';

const views = {
  chat: () => import('./chat.js').then((m) => m.chatView),
  agents: () => import('./chat.js').then((m) => m.agentsView),
  interview: () => import('./interview.js').then((m) => m.interviewView),
  tts: () => import('./tts.js').then((m) => m.ttsView),
  admin: () => import('./admin.js').then((m) => m.adminView),
  'admin-routing': () => import('./airouting.js').then((m) => m.routingView),
  'admin-usage': () => import('./airouting.js').then((m) => m.usageView),
};

const main = document.getElementById('main');
let cleanup = null;
let renderSeq = 0;

function parseHash() {
  const parts = (location.hash.replace(/^#\/?/, '') || '').split('/').filter(Boolean).map(decodeURIComponent);
  return { name: parts[0] || '', params: parts.slice(1) };
}

export function navigate(path) {
  if (location.hash === `#${path}`) render();
  else location.hash = path;
}

function setShell(loggedIn) {
  const user = getUser();
  document.getElementById('nav').hidden = !loggedIn;
  document.getElementById('userbox').hidden = !loggedIn;
  document.getElementById('nav-toggle').hidden = !loggedIn;
  document.getElementById('nav-admin').hidden = !(loggedIn && user && user.isAdmin);
  document.getElementById('user-name').textContent = user ? user.username : '';
  const { name } = parseHash();
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.route === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

async function render() {
  const seq = ++renderSeq;
  if (cleanup) { try { cleanup(); } catch { /* ignore */ } cleanup = null; }
  const { name, params } = parseHash();
  const loggedIn = !!getToken();
  if (!loggedIn && name !== 'login' && name !== 'register') {
    location.replace('#/login');
    return;
  }
  if (loggedIn && (name === '' || name === 'login' || name === 'register')) {
    location.replace('#/interview');
    return;
  }
  setShell(loggedIn);
  document.getElementById('nav').classList.remove('open');
  document.getElementById('nav-toggle').setAttribute('aria-expanded', 'false');
  if (name === 'login' || name === 'register') {
    authView(name);
    return;
  }
  const load = views[name];
  if (!load) {
    clear(main, h('section.card', h('h1', 'Page not found'), h('p', h('a', { href: '#/interview' }, 'Go to the interview'))));
    return;
  }
  clear(main, h('p.muted.loading', 'Loading…'));
  try {
    const view = await load();
    if (seq !== renderSeq) return;
    clear(main);
    cleanup = (await view(main, params)) || null;
  } catch (e) {
    if (seq !== renderSeq) return;
    const a = alertBox();
    a.error(e);
    clear(main, h('section.card', h('h1', 'Something went wrong'), a.el));
  }
}

// The username rule, as the server states it (internal/users.UsernameRule):
// shown next to the field on registration and checked while typing.
const USERNAME_RULE = '2 to 32 characters: letters of any script (such as 张伟 or alice), digits, _ . or -';
const USERNAME_CHARS = /^(?:[\p{L}\p{Nd}]\p{M}*|[_.-])+$/u;
const VARIATION_SELECTOR = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;

/** What is wrong with a username, or '' when it follows the rule. */
function usernameProblem(value) {
  const name = value.trim().normalize('NFC');
  if (!name) return '';
  const n = [...name].length;
  if (n < 2) return `Too short (${n} character). Use ${USERNAME_RULE}`;
  if (n > 32) return `Too long (${n} characters). Use ${USERNAME_RULE}`;
  if (!USERNAME_CHARS.test(name) || VARIATION_SELECTOR.test(name)) {
    const bad = [...name].find((c) => !/^[\p{L}\p{Nd}\p{M}_.-]$/u.test(c) || VARIATION_SELECTOR.test(c));
    const what = bad === undefined ? 'a mark that does not follow a letter' : /\s/u.test(bad) ? 'spaces' : `“${bad}”`;
    return `Not allowed: ${what}. Use ${USERNAME_RULE}`;
  }
  return '';
}

function authView(mode) {
  const isLogin = mode === 'login';
  document.title = `${isLogin ? 'Log in' : 'Register'} · AI-Meeting`;
  const alert = alertBox();
  const username = h('input', { name: 'username', autocomplete: 'username', required: true, minlength: 1, maxlength: 64 });
  const password = h('input', { name: 'password', type: 'password', autocomplete: isLogin ? 'current-password' : 'new-password', required: true, minlength: isLogin ? 1 : 8 });
  const submit = h('button.btn.btn-primary', { type: 'submit' }, isLogin ? 'Log in' : 'Create account');
  const extra = [];
  let realName; let mail;
  if (!isLogin) {
    realName = h('input', { name: 'realName', autocomplete: 'name', maxlength: 64 });
    mail = h('input', { name: 'mail', type: 'email', autocomplete: 'email', maxlength: 128 });
    extra.push(field('Full name (optional)', realName).wrap, field('Email (optional)', mail).wrap);
  }
  const userField = field('Username', username, isLogin ? null : `${USERNAME_RULE[0].toUpperCase()}${USERNAME_RULE.slice(1)}.`);
  if (!isLogin) {
    // Said while typing, before submitting: the field is marked invalid
    // and the browser refuses to submit until it follows the rule.
    const problem = h('small.msg-error.username-problem', { id: `${username.id}-problem`, 'aria-live': 'polite', hidden: true });
    username.setAttribute('aria-describedby', `${username.id}-hint ${problem.id}`);
    userField.wrap.append(problem);
    username.addEventListener('input', () => {
      const p = usernameProblem(username.value);
      username.setCustomValidity(p);
      username.setAttribute('aria-invalid', p ? 'true' : 'false');
      problem.textContent = p;
      problem.hidden = !p;
    });
  }
  const form = h('form.auth-form', { novalidate: false },
    userField.wrap,
    field('Password', password, isLogin ? null : 'At least 8 characters.').wrap,
    ...extra,
    alert.el,
    submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    alert.clear();
    await busy(submit, async () => {
      try {
        if (!isLogin) {
          const body = { username: username.value.trim(), password: password.value };
          if (realName.value.trim()) body.realName = realName.value.trim();
          if (mail.value.trim()) body.mail = mail.value.trim();
          await api('/users/register', { method: 'POST', body });
        }
        const res = await api('/users/login', { method: 'POST', body: { username: username.value.trim(), password: password.value } });
        setSession(res.token, { username: res.username, isAdmin: !!res.isAdmin });
        try {
          const me = await api('/users/me');
          updateUser({ id: me.id, username: me.username, isAdmin: !!me.isAdmin, realName: me.realName });
        } catch { /* the id is fetched again when needed */ }
        toast(isLogin ? 'Welcome back.' : 'Account created — you are logged in.', 'success');
        navigate('/interview');
      } catch (e) {
        // A wrong password is a 401 too: say what the server said.
        if (e.status === 401) alert.error(new Error(e.message));
        else alert.error(e);
      }
    }, isLogin ? 'Logging in…' : 'Creating…');
  });
  clear(main, h('section.card.auth-card',
    h('h1', isLogin ? 'Log in' : 'Create an account'),
    h('p.muted', 'Practise interviews with an AI interviewer, chat with models and agents, and turn text into speech.'),
    form,
    h('p.switch', isLogin ? 'No account yet? ' : 'Already registered? ',
      h('a', { href: isLogin ? '#/register' : '#/login' }, isLogin ? 'Register' : 'Log in'))));
  username.focus();
}

async function logout() {
  try { await api('/users/logout', { method: 'POST' }); } catch { /* the token is dropped anyway */ }
  clearSession();
  document.getElementById('offline-badge').hidden = true;
  toast('Logged out.');
  navigate('/login');
}

/** Ensures the stored user has its id (needed for the speech socket path). */
export async function currentUser() {
  const u = getUser();
  if (u && u.id) return u;
  const me = await api('/users/me');
  const nu = { id: me.id, username: me.username, isAdmin: !!me.isAdmin, realName: me.realName };
  updateUser(nu);
  return nu;
}

onUnauthorized(() => {
  if (!getToken()) return;
  clearSession();
  toast('Your session has expired — please log in again.', 'error', 6000);
  navigate('/login');
});
onOffline(() => { document.getElementById('offline-badge').hidden = false; });

document.getElementById('logout').addEventListener('click', logout);
document.getElementById('nav-toggle').addEventListener('click', () => {
  const nav = document.getElementById('nav');
  const open = !nav.classList.contains('open');
  nav.classList.toggle('open', open);
  document.getElementById('nav-toggle').setAttribute('aria-expanded', String(open));
});
window.addEventListener('hashchange', render);

// Validate a stored token once at start (it may have expired or been revoked).
(async () => {
  if (getToken()) {
    try {
      const r = await api('/users/check-login');
      if (!r.isLogin) clearSession();
      else {
        const u = getUser() || {};
        updateUser({ ...u, username: r.username, isAdmin: !!r.isAdmin });
      }
    } catch { /* offline server: keep the token, the views show errors */ }
  }
  render();
})();
