// The app shell: hash router (#/view/param), login state, navigation.

import { api, clearSession, describeError, getToken, getUser, onOffline, onUnauthorized, setSession, updateUser } from './api.js';
import { chosen, detect, locale, onLocaleChange, setLocale, t } from './i18n.js';
import './i18n/common.js';
import { askNewPassword } from './newpassword.js';
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
    clear(main, h('section.card', h('h1', t('shell.notFound')), h('p', h('a', { href: '#/interview' }, t('shell.goInterview')))));
    return;
  }
  clear(main, h('p.muted.loading', t('shell.loading')));
  try {
    const view = await load();
    if (seq !== renderSeq) return;
    clear(main);
    cleanup = (await view(main, params)) || null;
  } catch (e) {
    if (seq !== renderSeq) return;
    const a = alertBox();
    a.error(e);
    clear(main, h('section.card', h('h1', t('shell.wrong')), a.el));
  }
}

// The username rule, as the server states it (internal/users.UsernameRule):
// shown next to the field on registration and checked while typing.
const USERNAME_CHARS = /^(?:[\p{L}\p{Nd}]\p{M}*|[_.-])+$/u;
const VARIATION_SELECTOR = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;

/** The rule as nodes: its example names are in their own language (lang attribute). */
function usernameRule() {
  const parts = t('username.rule', { zh: '\u0001', latin: '\u0002' }).split(/([\u0001\u0002])/);
  return parts.map((p) => (p === '\u0001' ? h('span', { lang: 'zh-CN' }, '张伟') : p === '\u0002' ? h('span', { lang: 'en' }, 'alice') : p));
}

/** What is wrong with a username, or '' when it follows the rule. */
function usernameProblem(value) {
  const name = value.trim().normalize('NFC');
  if (!name) return '';
  const n = [...name].length;
  if (n < 2) return t('username.short', { n });
  if (n > 32) return t('username.long', { n });
  if (!USERNAME_CHARS.test(name) || VARIATION_SELECTOR.test(name)) {
    const bad = [...name].find((c) => !/^[\p{L}\p{Nd}\p{M}_.-]$/u.test(c) || VARIATION_SELECTOR.test(c));
    const what = bad === undefined ? t('username.badMark') : /\s/u.test(bad) ? t('username.badSpace') : t('username.badChar', { c: bad });
    return t('username.bad', { what });
  }
  return '';
}

/**
 * The browser's own validation bubbles ("Please fill out this field.")
 * speak the browser's language, not the page's: the page's words instead.
 * reset clears the message on input (false where another listener sets it).
 */
function pageValidity(input, reset) {
  input.addEventListener('invalid', () => {
    const v = input.validity;
    if (v.customError) return;
    if (v.valueMissing) input.setCustomValidity(t('form.required'));
    else if (v.tooShort) input.setCustomValidity(t('form.tooShort', { n: input.minLength }));
    else if (v.typeMismatch) input.setCustomValidity(t('form.badMail'));
  });
  if (reset) input.addEventListener('input', () => input.setCustomValidity(''));
}

function authView(mode) {
  const isLogin = mode === 'login';
  document.title = t('shell.title', { page: t(isLogin ? 'auth.login' : 'auth.register') });
  const alert = alertBox();
  const username = h('input', { name: 'username', autocomplete: 'username', required: true, minlength: 1, maxlength: 64 });
  const password = h('input', { name: 'password', type: 'password', autocomplete: isLogin ? 'current-password' : 'new-password', required: true, minlength: isLogin ? 1 : 8 });
  const submit = h('button.btn.btn-primary', { type: 'submit' }, t(isLogin ? 'auth.login' : 'auth.createAccount'));
  const extra = [];
  let realName; let mail;
  if (!isLogin) {
    realName = h('input', { name: 'realName', autocomplete: 'name', maxlength: 64 });
    mail = h('input', { name: 'mail', type: 'email', autocomplete: 'email', maxlength: 128 });
    extra.push(field(t('auth.realName'), realName).wrap, field(t('auth.mail'), mail).wrap);
  }
  const userField = field(t('auth.username'), username, isLogin ? null : usernameRule());
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
  for (const input of [username, password, mail].filter(Boolean)) pageValidity(input, !(input === username && !isLogin));
  const form = h('form.auth-form', { novalidate: false },
    userField.wrap,
    field(t('auth.password'), password, isLogin ? null : t('auth.passwordHint')).wrap,
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
        // The account's saved language wins; a choice made before logging
        // in (on the switch) is saved to an account that has none.
        if (res.language) setLocale(res.language);
        else if (chosen()) saveLanguage(locale());
        if (res.mustChangePassword) await askNewPassword();
        try {
          const me = await api('/users/me');
          updateUser({ id: me.id, username: me.username, isAdmin: !!me.isAdmin, realName: me.realName });
        } catch { /* the id is fetched again when needed */ }
        toast(t(isLogin ? 'auth.welcome' : 'auth.created'), 'success');
        navigate('/interview');
      } catch (e) {
        // A wrong password is a 401 too: say what the server said.
        if (e.status === 401) alert.error(new Error(e.message));
        else alert.error(e);
      }
    }, t(isLogin ? 'auth.loggingIn' : 'auth.creating'));
  });
  clear(main, h('section.card.auth-card',
    h('h1', t(isLogin ? 'auth.login' : 'auth.createTitle')),
    h('p.muted', t('auth.intro')),
    form,
    h('p.switch', t(isLogin ? 'auth.noAccount' : 'auth.already'),
      h('a', { href: isLogin ? '#/register' : '#/login' }, t(isLogin ? 'auth.register' : 'auth.login')))));
  username.focus();
}

async function logout() {
  try { await api('/users/logout', { method: 'POST' }); } catch { /* the token is dropped anyway */ }
  clearSession();
  document.getElementById('offline-badge').hidden = true;
  toast(t('auth.loggedOut'));
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
  toast(t('auth.expired'), 'error', 6000);
  navigate('/login');
});
onOffline(() => { document.getElementById('offline-badge').hidden = false; });

// ---------------------------------------------------------------- language

/** Sets the static texts of index.html from the catalog (data-i18n, data-i18n-attr="attr:key;..."). */
function applyStatic() {
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of el.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split(':');
      if (attr && key) el.setAttribute(attr.trim(), t(key.trim()));
    }
  }
  for (const b of document.querySelectorAll('#lang-switch [data-lang]')) {
    b.setAttribute('aria-pressed', String(b.dataset.lang === locale()));
  }
  if (!document.title || document.title === 'AI-Meeting') document.title = t('app.name');
}

/** Saves the language to the logged-in account (PUT /users). */
async function saveLanguage(loc) {
  if (!getToken()) return;
  try {
    await api('/users', { method: 'PUT', body: { language: loc } });
  } catch (e) { toast(t('auth.langSaveFailed', { msg: describeError(e) }), 'error'); }
}

// The language before anything shows: this browser's choice, else the
// browser's languages, else English (the account's choice follows below).
setLocale(detect(), { remember: false });
applyStatic();

// A language change re-renders the shell and the current view at once.
// Toasts of the old language are dropped (they are transient anyway).
onLocaleChange(() => {
  document.getElementById('toasts').replaceChildren();
  applyStatic();
  render();
});

for (const b of document.querySelectorAll('#lang-switch [data-lang]')) {
  b.addEventListener('click', () => {
    if (b.dataset.lang === locale()) return;
    setLocale(b.dataset.lang);
    saveLanguage(b.dataset.lang);
  });
}

document.getElementById('logout').addEventListener('click', logout);
document.getElementById('nav-toggle').addEventListener('click', () => {
  const nav = document.getElementById('nav');
  const open = !nav.classList.contains('open');
  nav.classList.toggle('open', open);
  document.getElementById('nav-toggle').setAttribute('aria-expanded', String(open));
});
window.addEventListener('hashchange', render);

// Validate a stored token once at start (it may have expired or been revoked),
// and take the account's saved language.
(async () => {
  if (getToken()) {
    try {
      const r = await api('/users/check-login');
      if (!r.isLogin) clearSession();
      else {
        const u = getUser() || {};
        updateUser({ ...u, username: r.username, isAdmin: !!r.isAdmin });
        try {
          const me = await api('/users/me');
          if (me.language && me.language !== locale()) { setLocale(me.language); return; }
        } catch { /* keep the detected language */ }
      }
    } catch { /* offline server: keep the token, the views show errors */ }
  }
  render();
})();
