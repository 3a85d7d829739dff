// The mock interview: start, resume upload, questions (typed or spoken
// answers), demeanor snapshots, finish, and the report.

import { ApiError, NetworkError, api, blobUrl, call, describeError, noteOffline, sleep } from './api.js';
import { currentUser, navigate } from './app.js';
import { SPEECH_LANGUAGES, guessLanguage, speechCapabilities, startTranscription, unsupportedNotice } from './speech.js';
import { fmtNumber, locale, t } from './i18n.js';
import './i18n/interview.js';
import { alertBox, busy, clear, field, fmtTime, h, offlineBadge, scoreText, toast } from './ui.js';

const P = '/interview';
const LAST_KEY = 'aimeeting.interview.sid';
const enc = encodeURIComponent;

function randomId() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return `web-${[...b].map((x) => x.toString(16).padStart(2, '0')).join('')}`;
}

// Answers being typed are kept per session and question in localStorage
// until sent: a reload, a language switch or a closed tab loses nothing.
const DRAFT_PREFIX = 'aimeeting.interview.draft.';
const draftKey = (sid, qn) => `${DRAFT_PREFIX}${sid}.${qn}`;
function loadDraft(sid, qn) { try { return localStorage.getItem(draftKey(sid, qn)) || ''; } catch { return ''; } }
function saveDraft(sid, qn, text) {
  try {
    if (text) localStorage.setItem(draftKey(sid, qn), text);
    else localStorage.removeItem(draftKey(sid, qn));
  } catch { /* storage full or off: the draft lives in the page only */ }
}
/** Drops every draft of sid (the interview is over). */
function dropDrafts(sid) {
  const prefix = `${DRAFT_PREFIX}${sid}.`;
  for (let i = localStorage.length - 1; i >= 0; i--) {
    const k = localStorage.key(i);
    if (k && k.startsWith(prefix)) localStorage.removeItem(k);
  }
}

// The last answer's feedback, per session: {d (the answer response),
// question, answer, next (the candidate went on to the next question)}, so
// that a reload shows it again.
const feedbackKey = (sid) => `aimeeting.interview.feedback.${sid}`;
function loadFeedback(sid) {
  try { return JSON.parse(localStorage.getItem(feedbackKey(sid)) || 'null'); } catch { return null; }
}
function saveFeedback(sid, fb) {
  try {
    if (fb) localStorage.setItem(feedbackKey(sid), JSON.stringify(fb));
    else localStorage.removeItem(feedbackKey(sid));
  } catch { /* the feedback lives in the page only */ }
}

/**
 * What was good in an answer and what to improve (d.strengths,
 * d.improvements): two short lists with headings, each left out when empty
 * (the server lists nothing for a hidden score). The items are the server's
 * sentences in the session's language.
 */
function pointLists(d) {
  const list = (cls, title, items) => (Array.isArray(items) && items.length
    ? h(`div.fb-points.${cls}`, h('h3', title), h('ul', ...items.map((x) => h('li', { 'data-user-content': '' }, x))))
    : null);
  const good = list('fb-strengths', t('iv.fb.strengths'), d.strengths);
  // At the top level nothing needs fixing: the server words what is left
  // as ways to go further, and the heading says so.
  const improve = list('fb-improvements', t(d.level === 'excellent' ? 'iv.fb.further' : 'iv.fb.improvements'), d.improvements);
  return good || improve ? h('div.fb-points-row', good, improve) : null;
}

/** Goes to path in place of the current history entry (Back skips it). */
function replaceRoute(path) { location.replace(`#${path}`); }

/** A server sentence ("the AI could not …") as a sentence: capital, full stop. */
function sentence(msg) {
  const s = String(msg || '').trim();
  if (!s) return '';
  const first = s[0].toUpperCase() + s.slice(1);
  return /[.!?。！？]$/.test(first) ? first : `${first}${/\p{Script=Han}/u.test(first) ? '。' : '.'}`;
}

/**
 * Shows a failed upload or answer in alert: the server's sentence for the
 * candidate, a Retry button calling retry, and the request id for support;
 * never the technical detail (that is in the server's log under the id).
 * Errors the candidate fixes (4xx) are shown as before, without Retry.
 */
function showFailure(alert, e, retry, requestId) {
  const serverSide = e instanceof NetworkError || (e instanceof ApiError && e.status >= 500) || !(e instanceof ApiError);
  if (!serverSide) { alert.error(e); return; }
  let msg = t('iv.fail.generic');
  if (e instanceof NetworkError) msg = t('err.network');
  else if (!(e instanceof ApiError) && e && e.message) msg = e.message; // the page's own words (t())
  else if (e instanceof ApiError && e.message && e.status >= 500 && e.status !== 500) msg = sentence(e.message);
  const id = (e instanceof ApiError && e.requestId) || requestId || '';
  const retryBtn = h('button.btn.btn-primary.retry-btn', { type: 'button' }, t('iv.fail.retry'));
  retryBtn.addEventListener('click', () => { alert.clear(); retry(); });
  clear(alert.el,
    h('p.failure-text', msg),
    id ? h('p.support-ref', t('iv.fail.ref'), ' ', h('code', { translate: 'no' }, id)) : null,
    h('div.row', retryBtn));
  alert.el.className = 'alert alert-error failure';
  alert.el.hidden = false;
}

/**
 * The steps of a long AI request (upload or answer) with elapsed times,
 * polled from GET /sessions/{sid}/progress/{requestId} while it runs.
 */
function progressPanel(sid) {
  const title = h('p.progress-title');
  const list = h('ol.steps', { 'aria-live': 'polite' });
  const total = h('p.progress-elapsed');
  const el = h('div.progress-panel', { hidden: true }, title, list, total);
  let timer = 0;
  let run = 0;
  const secs = (ms) => t('iv.prog.seconds', { s: fmtNumber(Math.max(0, ms) / 1000, { maximumFractionDigits: 0 }) });
  function render(p, kind, started) {
    const steps = (p && p.steps) || (kind === 'upload' ? ['reading', 'profile', 'questions'] : ['scoring', 'review', 'followup']);
    const entered = (p && p.entered) || [];
    const at = new Map(entered.map((e, i) => [e.step, { i, t: Date.parse(e.startedAt) }]));
    const current = p ? p.step : steps[0];
    const items = [];
    for (const step of steps) {
      const e = at.get(step);
      // review and follow-up happen only when the rules ask for them.
      if (!e && step !== steps[0] && (step === 'review' || step === 'followup')) continue;
      let state = 'pending';
      let time = '';
      if (e) {
        const next = entered[e.i + 1];
        if (next) {
          state = 'done';
          time = secs(Date.parse(next.startedAt) - e.t);
        } else if (p.done || p.failed) {
          state = p.failed ? 'failed' : 'done';
          time = p.finishedAt ? secs(Date.parse(p.finishedAt) - e.t) : '';
        } else {
          state = 'current';
          time = secs(p.stepElapsedMs);
        }
      } else if (!p && step === current) {
        state = 'current';
        time = secs(Date.now() - started);
      }
      items.push(h(`li.step.step-${state}`, { dataset: { step } },
        h('span.step-mark', { 'aria-hidden': 'true' }, state === 'done' ? '✓' : state === 'current' ? '…' : state === 'failed' ? '✕' : '·'),
        h('span.step-label', t(`iv.step.${step}`)), time ? h('span.step-time', time) : null));
    }
    clear(list, ...items);
    total.textContent = t('iv.prog.elapsed', { time: secs(p ? p.elapsedMs : Date.now() - started) });
  }
  return {
    el,
    /** Starts showing the progress of requestId (kind 'upload' or 'answer'). */
    start(requestId, kind) {
      this.stop();
      const my = ++run;
      const started = Date.now();
      title.textContent = t(kind === 'upload' ? 'iv.prog.upload' : 'iv.prog.answer');
      el.hidden = false;
      render(null, kind, started);
      let last = null;
      const poll = async () => {
        try {
          last = await api(`${P}/sessions/${enc(sid)}/progress/${enc(requestId)}`);
        } catch { /* not started yet (404) or a blip: keep the last view */ }
        if (my !== run) return;
        render(last, kind, started);
        if (last && (last.done || last.failed)) return;
        timer = setTimeout(poll, 500);
      };
      timer = setTimeout(poll, 250);
    },
    stop() { run += 1; clearTimeout(timer); el.hidden = true; },
  };
}

function mainNo(qn) { return parseInt(String(qn).split('-')[0], 10) || 0; }

// Resume uploads: PDF, TXT, MD, and photos or scans of a resume (read by OCR).
const RESUME_ACCEPT = '.pdf,.docx,.txt,.md,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document,text/plain,text/markdown,image/jpeg,image/png,image/webp';
const MAX_RESUME_BYTES = 20 * 1024 * 1024;

/** A character count with the locale's grouping. */
function fmtCount(n) { return fmtNumber(Number(n || 0)); }

/** A level (excellent, qualified, needs improvement) in the page's language. */
export function levelLabel(level) { return level ? t(`level.${level}`) : ''; }

/** What the server read from the resume, as a sentence ("" when unknown). */
export function readSummaryText(read) {
  if (!read || !read.source) return '';
  const n = fmtCount(read.chars);
  const pages = read.pages ? t('iv.read.pages', { n: read.pages }) : '';
  if (read.source === 'ocr') return t('iv.read.ocr', { n, pages });
  if (read.source === 'mixed') return t('iv.read.mixed', { n, pages, ocr: t('iv.read.ocrPages', { n: read.ocrPages }) });
  if (read.pages) return t('iv.read.text', { n, pages });
  // A Word file has no pages here; kind is "" for older sessions.
  if (read.kind === 'docx') return t('iv.read.word', { n });
  if (read.kind === 'txt' || read.kind === 'md') return t('iv.read.plain', { n });
  return t('iv.read.chars', { n });
}

/** The "12 / 5000" counter of the answer box. */
function counterText(n) { return `${fmtNumber(n)} / ${fmtNumber(5000)}`; }

/** A radar dimension's name in the page's language (by its stable key). */
function dimLabel(d) { return d.key ? t(`dim.${d.key}`) : d.label; }

/**
 * The message key with params, where the param named userKey is user
 * content (a direction the candidate typed or the model inferred): returns
 * nodes with that value in a span marked data-user-content.
 */
function withUser(key, params, userKey, value) {
  const marker = '\u0001';
  const [before, after = ''] = t(key, { ...params, [userKey]: marker }).split(marker);
  return [before, h('span', { 'data-user-content': '' }, value), after];
}

/** Sorted texts of a {no: text} map. */
function numberedTexts(m) {
  return Object.entries(m || {}).sort((a, b) => Number(a[0]) - Number(b[0])).map(([, t]) => t);
}

/** #/interview, #/interview/s/{sid}, #/interview/report/{sid} */
export async function interviewView(root, params) {
  document.title = t('shell.title', { page: t('iv.title') });
  const cleanups = [];
  const onCleanup = (fn) => cleanups.push(fn);
  const done = () => cleanups.splice(0).forEach((fn) => { try { fn(); } catch { /* ignore */ } });
  const [mode, sid] = params;
  if (mode === 'report' && sid) await reportView(root, sid, onCleanup);
  else if (mode === 's' && sid) await sessionView(root, sid, onCleanup);
  else await homeView(root);
  return done;
}

// ---------------------------------------------------------------- home

async function findResumable() {
  const last = localStorage.getItem(LAST_KEY);
  if (last) {
    try {
      const r = await api(`${P}/sessions/${enc(last)}/restore`);
      if (r.canResume) return r;
    } catch { /* gone or not ours: look it up below */ }
  }
  for (const status of ['IN_PROGRESS', 'READY']) {
    try {
      const page = await api(`${P}/conversations?status=${status}&current=1&size=1`);
      const s = (page.records || [])[0];
      if (s) {
        const r = await api(`${P}/sessions/${enc(s.sessionId)}/restore`);
        if (r.canResume) return r;
      }
    } catch { /* shown as no resumable session */ }
  }
  return null;
}

async function homeView(root) {
  const alert = alertBox();
  const startBtn = h('button.btn.btn-primary', { type: 'button' }, t('iv.home.start'));
  const resumeBox = h('div');
  const records = h('div');
  clear(root,
    h('section.card.hero',
      h('h1', t('iv.home.title')),
      h('p', t('iv.home.intro')),
      resumeBox, alert.el, h('div.row', startBtn)),
    h('section.card', h('h2', t('iv.home.reports')), records));

  startBtn.addEventListener('click', () => busy(startBtn, async () => {
    try {
      const s = await api(`${P}/sessions`, { method: 'POST' });
      noteOffline(s.offline);
      localStorage.setItem(LAST_KEY, s.sessionId);
      navigate(`/interview/s/${enc(s.sessionId)}`);
    } catch (e) { alert.error(e); }
  }, t('iv.home.starting')));

  const resumable = await findResumable();
  if (resumable) {
    const go = h('button.btn.btn-primary', { type: 'button', onclick: () => navigate(`/interview/s/${enc(resumable.sessionId)}`) }, t('iv.home.resume'));
    const note = resumable.interviewType
      ? withUser('iv.home.unfinishedType', {}, 'type', resumable.interviewType)
      : [t('iv.home.unfinished')];
    clear(resumeBox, h('div.alert.alert-info', h('p', ...note), go));
    startBtn.classList.remove('btn-primary');
  }
  try {
    const page = await api(`${P}/interview/records?current=1&size=10`);
    const rs = page.records || [];
    clear(records, rs.length ? h('ul.records', ...rs.map((r) => h('li',
      h('a', { href: `#/interview/report/${enc(r.sessionId)}` }, ...withUser('iv.home.record', { score: scoreText(r.interviewScore) }, 'direction', r.interviewDirection || t('iv.title'))),
      h('small.muted', ` ${fmtTime(r.endTime || r.startTime)}`), r.offline ? offlineBadge() : null))) : h('p.muted', t('iv.home.noRecords')));
  } catch (e) { clear(records, h('p.muted', describeError(e))); }
}

// ---------------------------------------------------------------- a session

async function sessionView(root, sid, onCleanup) {
  localStorage.setItem(LAST_KEY, sid);
  const alert = alertBox();
  let restore;
  try {
    restore = await api(`${P}/sessions/${enc(sid)}/restore`);
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 403)) localStorage.removeItem(LAST_KEY);
    alert.error(e);
    clear(root, h('section.card', h('h1', t('iv.title')), alert.el, h('p', h('a', { href: '#/interview' }, t('iv.backToInterview')))));
    return;
  }
  noteOffline(restore.offline);
  // The session's page of a finished interview is the report: in place of
  // this history entry, so that Back from the report leaves it.
  if (restore.status === 'FINISHED') { replaceRoute(`/interview/report/${enc(sid)}`); return; }
  if (restore.status === 'ABANDONED') {
    localStorage.removeItem(LAST_KEY);
    alert.info(t('iv.abandoned'));
    clear(root, h('section.card', h('h1', t('iv.title')), alert.el, h('p', h('a', { href: '#/interview' }, t('common.back')))));
    return;
  }
  if (restore.status === 'DRAFT' || restore.status === 'RESUME_UPLOADING') {
    uploadStep(root, sid, onCleanup);
    return;
  }
  if (restore.status === 'READY') {
    let questions = {};
    try { questions = await api(`${P}/sessions/${enc(sid)}/interview/questions`); } catch { /* shown as a count of 0 */ }
    readyStep(root, sid, onCleanup, {
      direction: restore.interviewType, resumeScore: restore.resumeScore, suggestions: restore.suggestions,
      read: restore.read, offline: restore.offline, questions, canReplace: restore.canReplaceResume,
    });
    return;
  }
  await questionStep(root, sid, onCleanup, restore);
}

/**
 * Uploads a resume with a fresh request id, showing the steps in panel
 * while it runs; returns the response's data or throws (the request id is
 * on the error as requestId when the server gave none).
 */
async function uploadResume(sid, fd, alert, panel) {
  const requestId = randomId();
  fd.set('requestId', requestId);
  panel.start(requestId, 'upload');
  try {
    const r = await withRetries(() => call(`${P}/sessions/${enc(sid)}/interview-questions`, { method: 'POST', form: fd }), alert);
    return r.data;
  } catch (e) {
    if (e && !e.requestId) e.requestId = requestId;
    throw e;
  } finally {
    panel.stop();
  }
}

function uploadStep(root, sid, onCleanup) {
  const alert = alertBox();
  const panel = progressPanel(sid);
  onCleanup(() => panel.stop());
  const file = h('input', { type: 'file', name: 'resumePdf', accept: RESUME_ACCEPT, required: true });
  const target = h('input', { name: 'confirmedTarget', maxlength: 100, placeholder: t('iv.up.targetPlaceholder') });
  // The interview's language: the resume's unless the candidate picks one
  // (an English resume for a candidate who wants to practise in Chinese).
  const language = h('select', { name: 'language' },
    h('option', { value: '' }, t('iv.up.langAuto')),
    h('option', { value: 'zh-CN' }, t('iv.up.langZh')),
    h('option', { value: 'en' }, t('iv.up.langEn')));
  const submit = h('button.btn.btn-primary', { type: 'submit' }, t('iv.up.submit'));
  // novalidate: the checks below say what to do in the page's language
  // (the browser's own bubble speaks the browser's).
  const form = h('form.stack', { novalidate: true },
    field(t('iv.up.fileLabel'), file).wrap,
    field(t('iv.up.target'), target, t('iv.up.targetHint')).wrap,
    field(t('iv.up.language'), language, t('iv.up.languageHint')).wrap,
    h('div.row', submit), alert.el);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    alert.clear();
    const f = file.files[0];
    if (!f) { alert.info(t('iv.up.chooseFirst')); file.focus(); return; }
    if (f.size > MAX_RESUME_BYTES) { alert.info(t('iv.up.tooLarge')); return; }
    await busy(submit, async () => {
      const fd = new FormData();
      fd.append('resumePdf', f);
      if (target.value.trim()) fd.append('confirmedTarget', target.value.trim());
      if (language.value) fd.append('language', language.value);
      try {
        readyStep(root, sid, onCleanup, readyInfo(await uploadResume(sid, fd, alert, panel)));
      } catch (e) { showFailure(alert, e, () => form.requestSubmit()); }
    }, t('iv.up.reading'));
  });
  clear(root, h('section.card', h('h1', t('iv.up.title')),
    h('p.muted', t('iv.up.intro')), form, panel.el));
  file.focus();
}

/** The ready screen's data from an upload response. */
function readyInfo(d) {
  return {
    direction: d.target || d.interviewType, resumeScore: d.resumeScore, suggestions: d.suggestions,
    read: d.read, offline: d.offline, questions: d.questions, canReplace: true,
  };
}

/**
 * The "ready" screen: what was read from the resume, direction, score,
 * the questions, and — until the interview begins — "Replace resume",
 * which re-uploads and shows the regenerated questions.
 */
function readyStep(root, sid, onCleanup, info) {
  const questions = numberedTexts(info.questions);
  const readText = readSummaryText(info.read);
  const little = info.read && info.read.source && info.read.chars < 400;
  const title = h('h1', { tabindex: '-1' }, t('iv.ready.title'), info.offline ? offlineBadge() : null);
  const begin = h('button.btn.btn-primary', { type: 'button' }, t('iv.ready.begin'));
  begin.addEventListener('click', () => {
    window.scrollTo(0, 0);
    questionStep(root, sid, onCleanup, { offline: info.offline, interviewType: info.direction });
  });
  const summary = h('section.card.summary',
    title,
    readText ? h(little ? 'p.read-summary.read-little' : 'p.read-summary', { 'aria-live': 'polite' }, h('span.read-text', readText),
      little ? h('span.read-hint', t('iv.ready.little')) : null) : null,
    h('dl.facts',
      h('dt', t('iv.ready.direction')), h('dd', { 'data-user-content': '' }, info.direction || '—'),
      h('dt', t('iv.ready.resumeScore')), h('dd', scoreText(info.resumeScore)),
      h('dt', t('iv.ready.questions')), h('dd', fmtNumber(questions.length))),
    questions.length ? h('details.question-preview', h('summary', t('iv.ready.preview', { n: questions.length })),
      h('ol', { 'data-user-content': '' }, ...questions.map((q) => h('li', q)))) : null,
    suggestionsList(info.suggestions),
    h('div.row', begin));

  let replaceCard = null;
  if (info.canReplace) {
    const alert = alertBox();
    const panel = progressPanel(sid);
    onCleanup(() => panel.stop());
    const file = h('input', { type: 'file', name: 'resumePdf', accept: RESUME_ACCEPT });
    const submit = h('button.btn', { type: 'submit' }, t('iv.ready.replace'));
    const form = h('form.stack',
      field(t('iv.ready.newFile'), file).wrap,
      h('div.row', submit), panel.el, alert.el);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      alert.clear();
      const f = file.files[0];
      if (!f) { alert.info(t('iv.ready.chooseNew')); file.focus(); return; }
      if (f.size > MAX_RESUME_BYTES) { alert.info(t('iv.up.tooLarge')); return; }
      await busy(submit, async () => {
        const fd = new FormData();
        fd.append('resumePdf', f);
        try {
          readyStep(root, sid, onCleanup, readyInfo(await uploadResume(sid, fd, alert, panel)));
          toast(t('iv.ready.replaced'), 'success');
        } catch (e) {
          showFailure(alert, e, () => form.requestSubmit());
          // The interview was started elsewhere: replacing is over.
          if (e instanceof ApiError && e.status === 409 && /started/.test(e.message || '')) form.hidden = true;
        }
      }, t('iv.up.reading'));
    });
    replaceCard = h('section.card.replace-card',
      h('h2', t('iv.ready.replaceTitle')),
      h('p.muted', t('iv.ready.replaceIntro')),
      form);
  }
  clear(root, summary, replaceCard);
  title.focus();
}

function suggestionsList(sugg) {
  const items = numberedTexts(sugg);
  if (!items.length) return null;
  return h('div', h('h3', t('iv.ready.suggestions')), h('ul', { 'data-user-content': '' }, ...items.map((x) => h('li', x))));
}

/** Retries fn on 429 (after Retry-After) a few times; other errors are thrown. */
async function withRetries(fn, alert, tries = 3) {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ApiError && e.status === 429 && i < tries) {
        alert.error(e);
        await sleep(Math.max(1, e.retryAfter || 1) * 1000);
        alert.clear();
        continue;
      }
      throw e;
    }
  }
}

async function questionStep(root, sid, onCleanup, restore) {
  const alert = alertBox();
  const status = h('p.status-line', { 'aria-live': 'polite' });
  let total = 0;
  try {
    const qs = await api(`${P}/sessions/${enc(sid)}/interview/questions`);
    total = Object.keys(qs || {}).length;
  } catch { /* the count is cosmetic */ }

  let cur;
  try {
    cur = await api(`${P}/sessions/${enc(sid)}/current-question`);
  } catch (e) {
    alert.error(e);
    clear(root, h('section.card', h('h1', t('iv.title')), alert.el));
    return;
  }

  const progressText = h('p.progress-text');
  const progressBar = h('progress', { max: Math.max(total, 1), value: 0, 'aria-label': t('iv.q.progress') });
  const badge = h('span.badge.badge-followup', { hidden: true }, t('iv.q.followUp'));
  const qTitle = h('h2.question-title', { tabindex: '-1' });
  const qText = h('p.question-text', { 'data-user-content': '' });
  const answer = h('textarea', { rows: 7, maxlength: 5000, name: 'answerContent', required: true, placeholder: t('iv.q.placeholder'), 'aria-describedby': 'answer-shortcut' });
  const counter = h('small.muted', counterText(0));
  const submit = h('button.btn.btn-primary', { type: 'submit' }, t('iv.q.submit'));
  const voiceBtn = h('button.btn', { type: 'button', 'aria-pressed': 'false' }, t('iv.q.voice'));
  const voiceStatus = h('small.muted.voice-status', { 'aria-live': 'polite' });
  const voiceLevel = h('meter.voice-level', { min: 0, max: 1, low: 0.05, value: 0, 'aria-label': t('iv.voice.level'), hidden: true });
  const voiceLang = h('select.voice-lang', { name: 'speechLanguage', 'aria-label': t('iv.q.speechLang') },
    SPEECH_LANGUAGES.map((l) => h('option', { value: l.tag, lang: l.tag }, l.label)));
  const voiceNotice = h('p.voice-notice', { id: 'voice-notice', role: 'status', hidden: true });
  const feedback = h('div.feedback');
  const previous = h('div.previous-feedback');
  const panel = progressPanel(sid);
  onCleanup(() => panel.stop());
  const runScore = h('p.muted.run-score');
  const finishBtn = h('button.btn', { type: 'button' }, t('iv.q.endEarly'));
  const finishCard = h('section.card.finish-card', { hidden: true },
    h('h2', { tabindex: '-1' }, t('iv.q.allDone')),
    h('p', t('iv.q.wellDone')),
    h('button.btn.btn-primary#finish', { type: 'button', onclick: (e) => finish(e.currentTarget) }, t('iv.q.finish')));

  const answerField = field(t('iv.q.answer'), answer);
  const questionCard = h('section.card.question-card',
    h('div.progress-row', progressText, badge), progressBar,
    qTitle, qText,
    // novalidate: an empty answer gets iv.q.writeFirst in the page's language.
    h('form.stack', { novalidate: true, onsubmit: (e) => { e.preventDefault(); submitAnswer(); } },
      answerField.wrap,
      h('div.row.between', h('div.row.voice-row', voiceLang, voiceBtn, voiceLevel, voiceStatus), counter),
      voiceNotice,
      h('div.row.submit-row', submit, h('small.muted.shortcut', { id: 'answer-shortcut' }, t('iv.q.shortcut'))),
      panel.el, status, alert.el));

  answer.addEventListener('input', () => {
    counter.textContent = counterText(answer.value.length);
    if (cur && cur.questionNumber && !cur.finished) saveDraft(sid, cur.questionNumber, answer.value);
  });
  // Ctrl+Enter (Cmd+Enter on a Mac) sends, as in chat.
  answer.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      if (!submit.disabled) submitAnswer();
    }
  });

  function show(q) {
    cur = q;
    if (q.offline) noteOffline(true);
    if (q.finished || !q.questionNumber) {
      questionCard.hidden = true;
      finishCard.hidden = false;
      finishBtn.hidden = true;
      progressBar.value = total;
      return;
    }
    questionCard.hidden = false;
    finishCard.hidden = true;
    const n = mainNo(q.questionNumber);
    progressText.textContent = total ? t('iv.q.ofTotal', { n, total }) : t('iv.q.number', { n });
    progressBar.value = Math.max(0, n - 1);
    badge.hidden = !q.isFollowUp;
    badge.textContent = q.isFollowUp ? t('iv.q.followUpTo', { n }) : t('iv.q.followUp');
    qTitle.textContent = q.isFollowUp ? t('iv.q.followUpTitle', { qn: q.questionNumber }) : t('iv.q.questionTitle', { qn: q.questionNumber });
    qText.textContent = q.questionContent;
    if (!langPicked) { voiceAsked = false; voiceLang.value = guessLanguage(q.questionContent); updateVoiceLang(); }
    answer.value = loadDraft(sid, q.questionNumber);
    counter.textContent = counterText(answer.value.length);
    if (q.totalScore !== null && q.totalScore !== undefined) runScore.textContent = t('iv.q.runningScore', { score: q.totalScore });
  }

  /** What comes after an answer, from its response. */
  const nextOf = (d) => ({ ...d, questionNumber: d.nextQuestionNumber, questionContent: d.nextQuestion, isFollowUp: d.isFollowUp, finished: d.finished || !d.nextQuestionNumber });

  // The pending answer keeps its requestId so that a retry is the same request.
  let pending = null;
  async function submitAnswer() {
    const text = answer.value.trim();
    alert.clear();
    if (!text) { alert.info(t('iv.q.writeFirst')); answer.focus(); return; }
    if (recorder) await stopVoice();
    if (!pending || pending.qn !== cur.questionNumber || pending.text !== text) {
      pending = { qn: cur.questionNumber, question: cur.questionContent, text, requestId: randomId() };
    }
    const body = { questionNumber: pending.qn, answerContent: pending.text, requestId: pending.requestId };
    await busy(submit, async () => {
      panel.start(pending.requestId, 'answer');
      try {
        let r;
        for (let attempt = 0; ; attempt++) {
          r = await withRetries(() => call(`${P}/sessions/${enc(sid)}/interview/answer-json`, { method: 'POST', body }), alert);
          if (r.status !== 202 && r.data.status !== 'evaluating') break;
          if (attempt >= 30) throw new Error(t('iv.q.stillEvaluating'));
          status.textContent = t('iv.q.retrying');
          await sleep(1500);
        }
        status.textContent = '';
        panel.stop();
        const sent = pending;
        pending = null;
        saveDraft(sid, sent.qn, '');
        const fb = { d: r.data, question: sent.question, answer: sent.text, next: false };
        saveFeedback(sid, fb);
        showFeedback(fb, true);
      } catch (e) {
        status.textContent = '';
        panel.stop();
        if (e instanceof ApiError && e.status === 409 && e.data && typeof e.data === 'object' && 'questionNumber' in e.data) {
          pending = null;
          const keep = answer.value;
          show(e.data);
          if (!e.data.finished && e.data.questionNumber) {
            answer.value = keep;
            saveDraft(sid, e.data.questionNumber, keep);
          }
          alert.info(e.data.questionNumber ? t('iv.q.currentN', { msg: e.message, qn: e.data.questionNumber }) : t('iv.q.current', { msg: e.message }));
        } else {
          showFailure(alert, e, submitAnswer, pending && pending.requestId);
        }
      }
    }, t('iv.q.evaluating'));
  }

  /** The card of one answer's feedback: what was asked, what was answered, the verdict. */
  function feedbackCard(fb, active) {
    const d = fb.d;
    if (d.offline) noteOffline(true);
    const follow = /-F/i.test(d.questionNumber || '');
    const heading = h('h2.feedback-title', { id: active ? 'feedback-title' : null }, t(follow ? 'iv.fb.followUp' : 'iv.fb.question', { qn: d.questionNumber }), d.offline ? offlineBadge() : null);
    const hidden = d.score === null || d.score === undefined;
    const body = [
      h('p.score-line',
        hidden ? h('strong.score.score-hidden', t('iv.fb.noScore')) : [h('strong.score', scoreText(d.score)), t('iv.fb.outOf')],
        d.level ? h('span.level', ` · ${levelLabel(d.level)}`) : null),
      d.scoreHidden ? h('p.score-hidden-reason', h('span', t('iv.fb.whyNoScore')), ' ', h('span', { 'data-user-content': '' }, d.scoreHidden)) : null,
      h('dl.fb-qa',
        h('dt', t('iv.fb.asked')), h('dd.fb-question', { 'data-user-content': '' }, fb.question || d.questionContent || ''),
        h('dt', t('iv.fb.yourAnswer')), h('dd.fb-answer', { 'data-user-content': '' }, fb.answer || '')),
      d.feedback ? [h('h3', t('iv.fb.noted')), h('p.fb-text', { 'data-user-content': '' }, d.feedback)] : null,
      pointLists(d),
      d.totalScore !== null && d.totalScore !== undefined ? h('p.muted', t('iv.fb.running', { score: d.totalScore })) : null,
    ];
    if (!active) {
      return h('details.card.feedback-prev', h('summary', t('iv.fb.previous', { qn: d.questionNumber })), ...body);
    }
    const finished = d.finished || !d.nextQuestionNumber;
    const marker = finished ? t('iv.fb.last') : d.isFollowUp ? t('iv.fb.followUpNext') : t('iv.fb.nextMain', { qn: d.nextQuestionNumber });
    const nextBtn = h('button.btn.btn-primary.next-btn', { type: 'button' },
      finished ? t('iv.fb.toFinish') : d.isFollowUp ? t('iv.fb.nextFollowUp') : t('iv.fb.next'));
    // Once only: a double click must not go two steps.
    nextBtn.addEventListener('click', () => { if (!fb.next) goNext(fb); });
    return h('section.card.feedback-card', { tabindex: '-1', 'aria-labelledby': 'feedback-title' },
      heading, ...body,
      h(d.isFollowUp && !finished ? 'p.fb-marker.fb-marker-followup' : 'p.fb-marker', marker),
      h('div.row.next-row', nextBtn));
  }

  /**
   * Shows the feedback on the answer just sent in place of the question;
   * the next question waits for the candidate's "Next question". focus
   * scrolls the card into view and moves focus to it.
   */
  function showFeedback(fb, focus) {
    questionCard.hidden = true;
    finishCard.hidden = true;
    clear(previous);
    const card = feedbackCard(fb, true);
    clear(feedback, card);
    if (fb.d.totalScore !== null && fb.d.totalScore !== undefined) runScore.textContent = t('iv.q.runningScore', { score: fb.d.totalScore });
    if (focus) {
      // Below the sticky header (two rows on a phone), not under it.
      const bar = document.getElementById('topbar');
      const top = card.getBoundingClientRect().top + window.scrollY - (bar ? bar.getBoundingClientRect().height : 0) - 8;
      window.scrollTo(0, Math.max(0, top));
      card.focus({ preventScroll: true });
    }
  }

  // When "Next question" was last pressed: the question card takes the
  // feedback card's place, so the second click of a double click would
  // land on whatever is now under the pointer (the submit button) and
  // send an empty answer. Such clicks that soon after, on an empty answer,
  // are ignored (an answer already there, a kept draft, is sent).
  let nextAt = 0;
  const NEXT_GUARD_MS = 700;
  submit.addEventListener('click', (e) => {
    if (Date.now() - nextAt < NEXT_GUARD_MS && !answer.value.trim()) e.preventDefault();
  });

  /** The candidate is ready: the next question (or the finish), the feedback kept folded below it. */
  function goNext(fb) {
    fb.next = true;
    nextAt = Date.now();
    saveFeedback(sid, fb);
    clear(feedback);
    clear(previous, feedbackCard(fb, false));
    show(nextOf(fb.d));
    window.scrollTo(0, 0);
    if (cur.finished || !cur.questionNumber) finishCard.querySelector('h2').focus();
    else qTitle.focus();
  }

  async function finish(btn) {
    await busy(btn, async () => {
      try {
        await withRetries(() => call(`${P}/sessions/${enc(sid)}/finish`, { method: 'PUT' }), alert);
        localStorage.removeItem(LAST_KEY);
        dropDrafts(sid);
        saveFeedback(sid, null);
        // The report takes the session page's place in the history.
        replaceRoute(`/interview/report/${enc(sid)}`);
      } catch (e) { showFailure(alert, e, () => finish(btn)); }
    }, t('iv.finish.building'));
  }
  let confirmEnd = false;
  finishBtn.addEventListener('click', () => {
    if (!confirmEnd) {
      confirmEnd = true;
      finishBtn.textContent = t('iv.q.endConfirm');
      setTimeout(() => { confirmEnd = false; finishBtn.textContent = t('iv.q.endEarly'); }, 4000);
      return;
    }
    finish(finishBtn);
  });

  // ---- voice
  // The recognition language: guessed from each question until the
  // candidate picks one. A language the server's recogniser cannot do is
  // said (and recording refused) only once the candidate asks for voice:
  // by picking that language or pressing the microphone. A guess alone
  // (a Chinese question on an English-only recogniser) warns of nothing,
  // since most candidates type.
  let langPicked = false;
  let voiceAsked = false;
  let caps = null;
  function updateVoiceLang() {
    const notice = (langPicked || voiceAsked) ? unsupportedNotice(caps, voiceLang.value) : '';
    voiceNotice.textContent = notice;
    voiceNotice.hidden = !notice;
    if (!recorder) voiceBtn.disabled = Boolean(notice);
    if (notice) voiceBtn.setAttribute('aria-describedby', 'voice-notice');
    else voiceBtn.removeAttribute('aria-describedby');
  }
  voiceLang.addEventListener('change', () => { langPicked = true; updateVoiceLang(); });
  speechCapabilities().then((c) => { caps = c; updateVoiceLang(); });

  let recorder = null;
  let voicePrefix = '';
  let heard = '';
  async function startVoice() {
    alert.clear();
    voiceStatus.classList.remove('voice-empty');
    voiceStatus.textContent = t('iv.voice.connecting');
    heard = '';
    try {
      const user = await currentUser();
      voicePrefix = answer.value ? `${answer.value.replace(/\s+$/, '')} ` : '';
      recorder = await startTranscription(user.id, {
        onText: (txt) => {
          heard = txt;
          answer.value = voicePrefix + txt;
          counter.textContent = counterText(answer.value.length);
          if (cur && cur.questionNumber) saveDraft(sid, cur.questionNumber, answer.value);
        },
        onStatus: (s) => { voiceStatus.textContent = s; },
        onError: (m) => { voiceStatus.textContent = ''; alert.info(t('iv.voice.error', { msg: m })); stopVoice(); },
        onLevel: (v) => { voiceLevel.value = v; },
      }, voiceLang.value);
      voiceLang.disabled = true;
      voiceLevel.hidden = false;
      voiceBtn.textContent = t('iv.q.stopVoice');
      voiceBtn.setAttribute('aria-pressed', 'true');
      voiceBtn.classList.add('recording');
    } catch (e) {
      recorder = null;
      voiceStatus.textContent = '';
      alert.info(e.message || String(e));
    }
  }
  async function stopVoice() {
    const r = recorder;
    recorder = null;
    voiceBtn.textContent = t('iv.q.voice');
    voiceBtn.setAttribute('aria-pressed', 'false');
    voiceBtn.classList.remove('recording');
    voiceLang.disabled = false;
    voiceLevel.hidden = true;
    voiceLevel.value = 0;
    if (r) {
      voiceStatus.textContent = t('iv.voice.finishing');
      const text = await r.stop();
      const empty = !String(text || heard || '').trim();
      voiceStatus.classList.toggle('voice-empty', empty);
      voiceStatus.textContent = empty ? t('iv.voice.nothing') : t('iv.voice.done');
    }
  }
  voiceBtn.addEventListener('click', () => {
    if (recorder) { stopVoice(); return; }
    if (Date.now() - nextAt < NEXT_GUARD_MS) return; // the second click of a double click on Next
    if (unsupportedNotice(caps, voiceLang.value)) { voiceAsked = true; updateVoiceLang(); return; }
    startVoice();
  });
  onCleanup(() => { if (recorder) recorder.stop(); });

  const camera = cameraPanel(sid, alert, onCleanup);

  clear(root,
    h('div.interview-layout',
      h('div.interview-main',
        h('div.iv-head',
          h('h1', t('iv.title'), restore.offline ? offlineBadge() : null),
          restore.interviewType ? h('span.iv-direction', { 'data-user-content': '' }, restore.interviewType) : null,
          runScore),
        questionCard, feedback, finishCard, previous),
      h('aside.interview-side', camera, h('section.card', h('h2', t('iv.finish.title')), h('p.muted', t('iv.finish.intro')),
        h('div.row', finishBtn, h('a.btn.btn-ghost.live-report-link', { href: `#/interview/report/${enc(sid)}` }, t('iv.q.liveReport')))))));
  show(cur);

  // After a reload: the last feedback again, waiting for "Next question"
  // when the candidate had not gone on yet, else folded below the question.
  // The browser's copy first; else the server's (another browser, cleared
  // storage), shown folded: whether the candidate went on is not known.
  const lf = restore.lastFeedback;
  const fromServer = lf && lf.response ? { d: lf.response, question: lf.response.questionContent, answer: lf.answerContent, next: true } : null;
  const leadsHere = (fb) => {
    const n = fb && fb.d ? nextOf(fb.d) : null;
    return Boolean(n && (n.finished ? cur.finished || !cur.questionNumber : n.questionNumber === cur.questionNumber));
  };
  const last = [loadFeedback(sid), fromServer].find(leadsHere);
  const matches = Boolean(last);
  if (matches && !last.next) {
    showFeedback(last, false);
    feedback.querySelector('.next-btn').focus();
    return;
  }
  if (matches) clear(previous, feedbackCard(last, false));
  if (cur.finished || !cur.questionNumber) finishCard.querySelector('button').focus();
  else answer.focus();
}

/**
 * The demeanor panel: the camera is offered only when the server says the
 * model of the demeanor stage can see images (GET /capabilities); else one
 * sentence says why not.
 */
function cameraPanel(sid, alert, onCleanup) {
  const body = h('div.camera-body', h('p.muted', t('iv.cam.checking')));
  const card = h('section.card.camera', h('h2', t('iv.cam.title')), body);
  api(`${P}/capabilities?language=${enc(locale())}`).then((c) => {
    if (c && c.demeanor && c.demeanor.available) clear(body, cameraControls(sid, alert, onCleanup));
    else clear(body, h('p.demeanor-off', sentence(c && c.demeanor && c.demeanor.reason) || t('iv.cam.noVisionSentence')));
  }).catch(() => { clear(body, h('p.demeanor-off', t('iv.cam.unknown'))); });
  return card;
}

function cameraControls(sid, alert, onCleanup) {
  const video = h('video', { autoplay: true, muted: true, playsinline: true, 'aria-label': t('iv.cam.preview'), hidden: true });
  const canvas = h('canvas', { hidden: true });
  const onBtn = h('button.btn', { type: 'button' }, t('iv.cam.on'));
  const snapBtn = h('button.btn', { type: 'button', disabled: true }, t('iv.cam.snap'));
  const result = h('div.demeanor', { 'aria-live': 'polite' });
  let stream = null;
  const stop = () => {
    if (stream) stream.getTracks().forEach((tr) => tr.stop());
    stream = null;
    video.srcObject = null;
    video.hidden = true;
    snapBtn.disabled = true;
    onBtn.textContent = t('iv.cam.on');
  };
  onCleanup(stop);
  onBtn.addEventListener('click', async () => {
    if (stream) { stop(); return; }
    try {
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) throw new Error(t('iv.cam.noCamera'));
      stream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
      video.srcObject = stream;
      video.hidden = false;
      snapBtn.disabled = false;
      onBtn.textContent = t('iv.cam.off');
    } catch (e) {
      alert.info(e && e.name === 'NotAllowedError' ? t('iv.cam.denied') : t('iv.cam.cannot', { msg: e.message || e.name }));
    }
  });
  snapBtn.addEventListener('click', () => busy(snapBtn, async () => {
    try {
      canvas.width = video.videoWidth || 640;
      canvas.height = video.videoHeight || 480;
      canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
      const blob = await new Promise((r) => canvas.toBlob(r, 'image/png'));
      const fd = new FormData();
      fd.append('userPhoto', blob, 'snapshot.png');
      const r = await withRetries(() => call(`${P}/sessions/${enc(sid)}/demeanor-evaluation`, { method: 'POST', form: fd }), alert);
      const d = r.data;
      if (!d.assessed) {
        // The server's sentence says it all: no second "not assessed" before it.
        clear(result, h('p.not-assessed', sentence(d.message) || t('iv.cam.noVisionSentence')));
      } else {
        clear(result, h('dl.facts',
          h('dt', t('iv.cam.panic')), h('dd', scoreText(d.panicLevel)),
          h('dt', t('iv.cam.seriousness')), h('dd', scoreText(d.seriousnessLevel)),
          h('dt', t('iv.cam.expression')), h('dd', scoreText(d.emoticonHandling)),
          h('dt', t('iv.cam.composite')), h('dd', scoreText(d.compositeScore)),
          h('dt', t('iv.cam.average')), h('dd', t('iv.cam.averageValue', { score: scoreText(d.sessionComposite), n: d.photoCount || 0 }))));
      }
    } catch (e) { alert.error(e); }
  }, t('iv.cam.assessing')));
  return [h('p.muted', t('iv.cam.intro')), video, canvas, h('div.row', onBtn, snapBtn), result];
}

// ---------------------------------------------------------------- report

async function reportView(root, sid, onCleanup) {
  document.title = t('shell.title', { page: t('iv.reportTitle') });
  const alert = alertBox();
  let rep;
  try {
    rep = await api(`${P}/interview/record/${enc(sid)}`);
  } catch (e) {
    alert.error(e);
    clear(root, h('section.card', h('h1', t('iv.reportTitle')), alert.el, h('p', h('a', { href: '#/interview' }, t('common.back')))));
    return;
  }
  noteOffline(rep.offline);
  const radarImg = h('img.radar', { alt: t('iv.rep.radarAlt'), width: 420, height: 420 });
  const radarBox = h('figure.radar-box', radarImg, h('figcaption.muted', t('iv.rep.radarCaption')));
  blobUrl(`${P}/sessions/${enc(sid)}/radar-chart.svg`).then((url) => {
    radarImg.src = url;
    onCleanup(() => URL.revokeObjectURL(url));
  }).catch((e) => { clear(radarBox, h('p.muted', t('iv.rep.radarUnavailable', { msg: describeError(e) }))); });

  const dims = (rep.radarDimensions || []).map((d) => h('li.dim',
    h('span.dim-label', dimLabel(d)),
    d.score === null || d.score === undefined
      ? h('span.muted', t('iv.rep.notAssessed'))
      : [h('meter', { min: 0, max: 100, low: 60, high: 85, optimum: 100, value: d.score, 'aria-label': dimLabel(d) }), h('span.dim-score', scoreText(d.score))]));
  const fb = rep.reviewFeedback || {};
  const listOf = (title, items) => (items && items.length ? h('div', h('h3', title), h('ul', { 'data-user-content': '' }, ...items.map((x) => h('li', x)))) : null);
  const playback = (rep.playbackItems || []).map((p) => h(p.isFollowUp ? 'li.playback-item.followup' : 'li.playback-item',
    h('div.row.between',
      h('h3', t(p.isFollowUp ? 'iv.rep.followUpN' : 'iv.rep.questionN', { qn: p.questionNumber }), p.isFollowUp ? h('span.badge.badge-followup', t('iv.rep.followUpBadge')) : null),
      h('span.score-pill', `${scoreText(p.score)}${p.level ? ` · ${levelLabel(p.level)}` : ''}`)),
    h('p.q', { 'data-user-content': '' }, p.questionContent),
    h('details.screen-only', h('summary', t('iv.rep.yourAnswer')), h('p.answer', { 'data-user-content': '' }, p.answerContent)),
    // On paper the answer is printed open (a closed <details> would hide it).
    h('div.print-only', h('h4', t('iv.rep.yourAnswer')), h('p.answer', { 'data-user-content': '' }, p.answerContent)),
    p.scoreHidden ? h('p.muted', { 'data-user-content': '' }, p.scoreHidden) : null,
    p.feedback ? h('p.feedback-text', { 'data-user-content': '' }, p.feedback) : null,
    pointLists(p),
    p.needsReview ? h('p.muted', t('iv.rep.review')) : null));

  const answered = rep.answeredCount ?? rep.playbackItems?.length ?? 0;
  // Potential is derived from the interview score: with no answer there is none.
  const tileDefs = [['iv.rep.tileInterview', rep.interviewScore], ['iv.rep.tileResume', rep.resumeScore], ['iv.rep.tileDemeanor', rep.demeanorScore]];
  const potential = rep.radarChart ? rep.radarChart.potentialIndex : null;
  if (answered > 0 && potential !== null && potential !== undefined) tileDefs.push(['iv.rep.tilePotential', potential]);
  const tiles = tileDefs.map(([key, v]) => h('div.tile', h('span.tile-value', scoreText(v)), h('span.tile-label', t(key)),
    (key === 'iv.rep.tileDemeanor' || key === 'iv.rep.tileInterview') && (v === null || v === undefined) ? h('small.muted', t('iv.rep.notAssessed')) : null));

  const meta = [
    rep.interviewDirection ? h('span', { 'data-user-content': '' }, rep.interviewDirection) : null,
    t('iv.rep.metaAnswers', { answers: answered }),
    rep.durationSeconds !== null && rep.durationSeconds !== undefined ? t('iv.rep.metaMinutes', { minutes: Math.max(1, Math.round(rep.durationSeconds / 60)) }) : null,
    rep.final !== false && rep.endTime ? fmtTime(rep.endTime) : null,
  ].filter(Boolean).flatMap((x, i) => (i ? [' · ', x] : [x]));
  const live = rep.final === false;
  const printBtn = h('button.btn', { type: 'button', onclick: () => window.print() }, t('iv.rep.print'));

  clear(root,
    h('section.card.report',
      h('div.row.between.report-head',
        h('h1', t('iv.reportTitle'), rep.offline ? offlineBadge() : null, live ? h('span.badge.badge-live', t('iv.rep.liveBadge')) : null),
        h('div.row.report-actions', printBtn, live ? h('a.btn', { href: `#/interview/s/${enc(sid)}` }, t('iv.rep.backToInterview')) : null,
          h('a.btn', { href: '#/interview' }, t('iv.rep.new')))),
      h('p.muted.report-meta', ...meta),
      live ? h('p.alert.alert-info.report-live', t('iv.rep.liveNote')) : null,
      // In the session's language, like the review: marked as such.
      rep.notAssessedReason ? h('p.not-assessed.report-not-assessed', { 'data-user-content': '' }, sentence(rep.notAssessedReason)) : null,
      alert.el,
      h('div.tiles', { class: `tiles tiles-${tiles.length}` }, ...tiles),
      h('div.report-grid', radarBox, h('div', h('h2', t('iv.rep.dimensions')), h('ul.dims', ...dims)))),
    h('section.card', h('h2', t('iv.rep.reviewTitle')), h('p.overall', { 'data-user-content': '' }, fb.overallComment || ''),
      listOf(t('iv.rep.highlights'), fb.highlights), listOf(t('iv.rep.improve'), fb.improvementTips), listOf(t('iv.rep.next'), fb.nextActions)),
    h('section.card', h('h2', t('iv.rep.playback')), playback.length ? h('ol.playback', ...playback) : h('p.muted', t('iv.rep.noAnswers'))));
}
