// Small DOM helpers: element building (text only, never innerHTML with data),
// alerts, toasts, forms.

import { describeError, isLoadFailure } from './api.js';
import { fmtDate, fmtNumber, t } from './i18n.js';

/**
 * h('button.btn#id', {type:'button', onclick}, 'text', child...) builds an
 * element. Attributes starting with "on" are listeners; text is always text.
 */
export function h(spec, attrs, ...children) {
  const m = spec.match(/^([a-z0-9-]+)?((?:[.#][\w-]+)*)$/i);
  const el = document.createElement((m && m[1]) || 'div');
  if (m && m[2]) {
    for (const part of m[2].match(/[.#][\w-]+/g)) {
      if (part[0] === '.') el.classList.add(part.slice(1));
      else el.id = part.slice(1);
    }
  }
  if (attrs && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked') el.checked = !!v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let uid = 0;
export function nextId(prefix = 'f') { uid += 1; return `${prefix}-${uid}`; }

/** A labelled form field; returns {wrap, input}. */
export function field(label, input, hint) {
  if (!input.id) input.id = nextId();
  const hintEl = hint ? h('small.hint', { id: `${input.id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  const wrap = h('div.field', h('label', { for: input.id }, label), input, hintEl);
  return { wrap, input };
}

/** An alert region that shows errors (role=alert) or notices. */
export function alertBox() {
  const el = h('div.alert', { role: 'alert', hidden: true });
  return {
    el,
    error(err) {
      // A sentence; for a server failure the request id for support
      // (what to fix is said in the sentence otherwise); a reload button
      // when the page could not load its own code.
      clear(el, describeError(err),
        err && err.requestId && err.status >= 500 ? h('small.err-ref', t('err.ref'), h('code', { translate: 'no' }, err.requestId)) : null,
        isLoadFailure(err) ? h('div', h('button.btn.btn-small', { type: 'button', onclick: () => location.reload() }, t('err.reload'))) : null);
      el.className = 'alert alert-error';
      el.hidden = false;
    },
    info(text) {
      clear(el, text);
      el.className = 'alert alert-info';
      el.hidden = false;
    },
    clear() { el.hidden = true; el.className = 'alert'; el.replaceChildren(); },
  };
}

export function toast(text, kind = 'info', ms = 4000) {
  const box = document.getElementById('toasts');
  if (!box) return;
  const el = h(`div.toast.toast-${kind}`, text);
  box.append(el);
  setTimeout(() => el.remove(), ms);
}

/** Disables button while fn runs; returns fn's result. */
export async function busy(button, fn, busyText) {
  const old = button.textContent;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  if (busyText) button.textContent = busyText;
  try {
    return await fn();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
    if (busyText) button.textContent = old;
  }
}

export function offlineBadge() {
  return h('span.badge.badge-offline', { title: t('offline.answerTitle') }, t('offline.badge'));
}

/** A server timestamp in the page's locale ('' when missing or unreadable). */
export function fmtTime(s) {
  if (!s) return '';
  return fmtDate(s);
}

export function scoreText(v) { return v === null || v === undefined ? '—' : fmtNumber(v); }

/**
 * Asks before something that cannot be undone; resolves true when the
 * user confirms. A modal <dialog>: Escape or Cancel says no.
 */
export function confirmDialog(message, { confirm = t('common.delete'), danger = true } = {}) {
  return new Promise((resolve) => {
    const yes = h(danger ? 'button.btn.btn-danger' : 'button.btn.btn-primary', { type: 'button' }, confirm);
    const no = h('button.btn', { type: 'button' }, t('common.cancel'));
    const text = h('p', { id: nextId('confirm') }, message);
    const dlg = h('dialog.confirm', { 'aria-describedby': text.id, role: 'alertdialog' }, text, h('div.row', no, yes));
    const done = (v) => { dlg.close(); dlg.remove(); resolve(v); };
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    dlg.addEventListener('cancel', (e) => { e.preventDefault(); done(false); });
    document.body.append(dlg);
    dlg.showModal();
    no.focus();
  });
}
