// The message catalog: every string the page shows comes from here, in
// Simplified Chinese or English, never mixed.
//
// Each view registers its own messages with addMessages({en: {...}, 'zh-CN': {...}})
// at module load, so a view and its strings live side by side. t(key, params)
// looks the key up in the current locale; a missing key returns the key itself
// (the DOM check in the browser tests fails on any such leftover).

export const LOCALES = ['zh-CN', 'en'];
const LANG_KEY = 'aimeeting.lang';

const catalogs = { en: {}, 'zh-CN': {} };
let current = 'en';
const listeners = new Set();

/** Merges messages ({en: {key: text}, 'zh-CN': {...}}) into the catalogs. */
export function addMessages(messages) {
  for (const loc of LOCALES) Object.assign(catalogs[loc], messages[loc] || {});
}

/** normalize maps a language tag (zh, zh-Hans-CN, en-GB…) to a supported locale, or ''. */
export function normalize(tag) {
  const t = String(tag || '').toLowerCase();
  if (t.startsWith('zh')) return 'zh-CN';
  if (t.startsWith('en')) return 'en';
  return '';
}

/** detect: the saved choice, else the browser's languages, else English. */
export function detect(saved) {
  const s = normalize(saved) || normalize(localStorage.getItem(LANG_KEY));
  if (s) return s;
  for (const l of navigator.languages || [navigator.language]) {
    const n = normalize(l);
    if (n) return n;
  }
  return 'en';
}

export function locale() { return current; }

/**
 * setLocale switches the page language, remembers it (unless
 * {remember: false}: a language only detected from the browser is not a
 * choice) and tells the listeners.
 */
export function setLocale(loc, { remember = true } = {}) {
  const n = normalize(loc) || 'en';
  if (remember) localStorage.setItem(LANG_KEY, n);
  document.documentElement.lang = n;
  if (n === current) return;
  current = n;
  for (const fn of listeners) fn(n);
}

/** onLocaleChange registers fn(locale); it returns the function that removes it. */
export function onLocaleChange(fn) { listeners.add(fn); return () => listeners.delete(fn); }

/**
 * t returns the message for key in the current locale, with {name}
 * placeholders filled from params. Numbers in params are formatted for the locale.
 */
export function t(key, params) {
  let s = catalogs[current][key];
  if (s === undefined) s = catalogs.en[key];
  if (s === undefined) return key;
  if (typeof s === 'function') return s(params || {});
  // Plural forms: {one: '{n} message', other: '{n} messages'}, picked by the
  // locale's plural rule for params.n (Chinese has one form, a plain string).
  if (typeof s === 'object') s = s[new Intl.PluralRules(current).select(Number((params || {}).n))] ?? s.other;
  if (!params) return s;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? fmtValue(params[k]) : m));
}

function fmtValue(v) { return typeof v === 'number' ? fmtNumber(v) : String(v); }

/** has reports whether key exists in the current locale's catalog. */
export function has(key) { return key in catalogs[current]; }

/** fmtNumber formats a number for the current locale. */
export function fmtNumber(n, opts) { return new Intl.NumberFormat(current, opts).format(n); }

/** fmtDate formats a date (Date, ISO string or epoch ms) with date and time. */
export function fmtDate(d, opts = { dateStyle: 'medium', timeStyle: 'short' }) {
  const v = d instanceof Date ? d : new Date(d);
  if (Number.isNaN(v.getTime())) return '';
  return new Intl.DateTimeFormat(current, opts).format(v);
}

/** chosen returns the language saved on this browser, or ''. */
export function chosen() { return normalize(localStorage.getItem(LANG_KEY)); }

/** keys lists every key of a locale (for the catalog completeness test). */
export function keys(loc) { return Object.keys(catalogs[loc] || {}); }
