// REST/SSE client of /api/xunzhi/v1: the token, the envelope, the errors.

import './i18n/common.js';
import { locale, t } from './i18n.js';

export const BASE = '/api/xunzhi/v1';
const TOKEN_KEY = 'aimeeting.token';
const USER_KEY = 'aimeeting.user';

export function getToken() { return localStorage.getItem(TOKEN_KEY) || ''; }
export function getUser() {
  try { return JSON.parse(localStorage.getItem(USER_KEY) || 'null'); } catch { return null; }
}
export function setSession(token, user) {
  localStorage.setItem(TOKEN_KEY, token);
  localStorage.setItem(USER_KEY, JSON.stringify(user));
}
export function updateUser(user) { localStorage.setItem(USER_KEY, JSON.stringify(user)); }
export function clearSession() {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(USER_KEY);
}

/** An API failure: HTTP status, the envelope's code/message/data, Retry-After. */
export class ApiError extends Error {
  constructor(status, env, retryAfter) {
    super((env && env.message) || t('err.http', { status: String(status) }));
    this.name = 'ApiError';
    this.status = status;
    this.code = env ? env.code : '';
    this.data = env ? env.data : null;
    this.hasMessage = !!(env && env.message); // the server said it in a sentence
    this.requestId = env ? env.requestId : '';
    this.retryAfter = retryAfter;
  }
}

/** A failure to reach the server at all. */
export class NetworkError extends Error {
  constructor(cause) { super(t('err.network')); this.cause = cause; }
}

let unauthorizedHandler = null;
/** fn is called when the server answers 401 (expired or revoked token). */
export function onUnauthorized(fn) { unauthorizedHandler = fn; }

let offlineHandler = null;
/** fn is called whenever a response says the offline model answered. */
export function onOffline(fn) { offlineHandler = fn; }
export function noteOffline(v) { if (v && offlineHandler) offlineHandler(); }

function headers(extra = {}) {
  // The server answers in the page's language (the envelope's message).
  const h = { 'Accept-Language': locale(), ...extra };
  const tok = getToken();
  if (tok) h.Authorization = `Bearer ${tok}`;
  return h;
}

/** fetch with the token; a network failure becomes a NetworkError. */
export async function rawFetch(path, opts = {}) {
  const init = { ...opts, headers: headers(opts.headers || {}) };
  try {
    return await fetch(path.startsWith('/') && !path.startsWith(BASE) ? BASE + path : path, init);
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new NetworkError(e);
  }
}

function retryAfterOf(res) {
  const v = res.headers.get('Retry-After');
  if (!v) return null;
  const n = Number(v);
  if (!Number.isNaN(n)) return n;
  const d = Date.parse(v);
  return Number.isNaN(d) ? null : Math.max(0, Math.round((d - Date.now()) / 1000));
}

/** Reads an error response into an ApiError. */
export async function errorOf(res) {
  let env = null;
  try { env = await res.json(); } catch { /* not JSON */ }
  if (res.status === 401 && unauthorizedHandler) unauthorizedHandler();
  return withRequestId(new ApiError(res.status, env, retryAfterOf(res)), res);
}

function withRequestId(err, res) {
  if (!err.requestId) err.requestId = res.headers.get('X-Request-Id') || '';
  return err;
}

/**
 * Calls the API and returns {status, data}. body is sent as JSON, form as
 * multipart. Throws ApiError for any non-2xx or non-"0" envelope.
 */
export async function call(path, { method = 'GET', body, form, signal } = {}) {
  const opts = { method, signal };
  if (form) opts.body = form;
  else if (body !== undefined) {
    opts.body = JSON.stringify(body);
    opts.headers = { 'Content-Type': 'application/json' };
  }
  const res = await rawFetch(path, opts);
  let env = null;
  try { env = await res.json(); } catch { /* empty or not JSON */ }
  if (!res.ok || !env || (env.code !== '0' && res.status !== 202)) {
    if (res.status === 401 && unauthorizedHandler) unauthorizedHandler();
    throw withRequestId(new ApiError(res.status, env, retryAfterOf(res)), res);
  }
  if (env.data && typeof env.data === 'object' && env.data.offline) noteOffline(true);
  return { status: res.status, data: env.data };
}

/** Calls the API and returns the envelope's data. */
export async function api(path, opts) { return (await call(path, opts)).data; }

/**
 * isLoadFailure: the page could not load one of its own modules (the
 * server was updated or the connection dropped while navigating).
 */
export function isLoadFailure(err) {
  return !!err && err.name === 'TypeError'
    && /dynamically imported module|Importing a module script failed|error loading dynamically imported/i.test(err.message || '');
}

/**
 * A human sentence for any error, from the envelope where there is one.
 * The request id (for support) is not in it: alertBox shows it apart.
 */
export function describeError(err) {
  if (!err) return t('err.unknown');
  if (err.name === 'AbortError') return t('err.cancelled');
  if (err instanceof NetworkError) return t('err.network');
  if (isLoadFailure(err)) return t('err.load');
  if (!(err instanceof ApiError)) {
    // A bug of the page itself: no programmer's message for the user.
    if (['TypeError', 'ReferenceError', 'SyntaxError', 'RangeError'].includes(err.name)) return t('err.unexpected');
    return err.message || String(err);
  }
  // The server's sentence, when it gave one (not "HTTP 500").
  const msg = err.hasMessage ? err.message : '';
  return sentenceFor(err, msg).trim();
}

function sentenceFor(err, msg) {
  switch (err.status) {
    // The server's own sentence says what to fix; no "Conflict:" before it.
    case 404: case 409: case 413: case 422:
      return msg || t(`err.${err.status}`);
    case 400: case 401: case 403:
      return t(`err.${err.status}`, { msg });
    case 429: return t('err.429', { s: err.retryAfter ?? 1, msg });
    case 502: case 503: case 504:
      return t(`err.${err.status}`, { msg });
    default:
      if (err.status >= 500) return t('err.5xx', { msg });
      return msg || err.message;
  }
}

/**
 * Parses a text/event-stream body as it arrives; yields {event, data}
 * (data JSON-parsed when it is JSON) for every event.
 */
export async function* sseEvents(res, signal) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let event = '';
  let data = [];
  const abort = () => reader.cancel().catch(() => {});
  if (signal) signal.addEventListener('abort', abort, { once: true });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let nl;
      while ((nl = buf.search(/\r?\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf[nl] === '\r' ? 2 : 1));
        if (line === '') {
          if (data.length) {
            const text = data.join('\n');
            let parsed = text;
            try { parsed = JSON.parse(text); } catch { /* plain text */ }
            yield { event: event || 'message', data: parsed };
          }
          event = '';
          data = [];
        } else if (line.startsWith(':')) {
          // comment / keep-alive
        } else {
          const i = line.indexOf(':');
          const field = i < 0 ? line : line.slice(0, i);
          let val = i < 0 ? '' : line.slice(i + 1);
          if (val.startsWith(' ')) val = val.slice(1);
          if (field === 'event') event = val;
          else if (field === 'data') data.push(val);
        }
      }
    }
  } finally {
    if (signal) signal.removeEventListener('abort', abort);
  }
}

/** POSTs JSON (or GETs when body is undefined) and returns the SSE response, or throws ApiError. */
export async function openStream(path, body, signal) {
  const opts = { method: body === undefined ? 'GET' : 'POST', signal, headers: { Accept: 'text/event-stream' } };
  if (body !== undefined) {
    opts.body = JSON.stringify(body);
    opts.headers['Content-Type'] = 'application/json';
  }
  const res = await rawFetch(path, opts);
  if (!res.ok || !(res.headers.get('Content-Type') || '').includes('text/event-stream')) throw await errorOf(res);
  return res;
}

/** Fetches a binary resource with the token and returns an object URL. */
export async function blobUrl(path) {
  const res = await rawFetch(path);
  if (!res.ok) throw await errorOf(res);
  return URL.createObjectURL(await res.blob());
}

export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    if (signal) signal.addEventListener('abort', () => { clearTimeout(t); reject(new DOMException('aborted', 'AbortError')); }, { once: true });
  });
}
