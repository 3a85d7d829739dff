// The mock interview: start, resume upload, questions (typed or spoken
// answers), demeanor snapshots, finish, and the report.

import { ApiError, api, blobUrl, call, describeError, noteOffline, sleep } from './api.js';
import { currentUser, navigate } from './app.js';
import { SPEECH_LANGUAGES, guessLanguage, speechCapabilities, startTranscription, unsupportedNotice } from './speech.js';
import { fmtNumber, t } from './i18n.js';
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

// Answers being typed, by session and question: a language switch
// re-renders the page, and what the candidate wrote must survive it.
const drafts = new Map();

function mainNo(qn) { return parseInt(String(qn).split('-')[0], 10) || 0; }

// Resume uploads: PDF, TXT, MD, and photos or scans of a resume (read by OCR).
const RESUME_ACCEPT = '.pdf,.txt,.md,application/pdf,text/plain,text/markdown,image/jpeg,image/png,image/webp';
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
  return read.pages ? t('iv.read.text', { n, pages }) : t('iv.read.plain', { n });
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
  if (restore.status === 'FINISHED') { navigate(`/interview/report/${enc(sid)}`); return; }
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

function uploadStep(root, sid, onCleanup) {
  const alert = alertBox();
  const file = h('input', { type: 'file', name: 'resumePdf', accept: RESUME_ACCEPT, required: true });
  const target = h('input', { name: 'confirmedTarget', maxlength: 100, placeholder: t('iv.up.targetPlaceholder') });
  const submit = h('button.btn.btn-primary', { type: 'submit' }, t('iv.up.submit'));
  const form = h('form.stack',
    field(t('iv.up.fileLabel'), file).wrap,
    field(t('iv.up.target'), target, t('iv.up.targetHint')).wrap,
    alert.el, h('div.row', submit));
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
      try {
        const r = await withRetries(() => call(`${P}/sessions/${enc(sid)}/interview-questions`, { method: 'POST', form: fd }), alert);
        readyStep(root, sid, onCleanup, readyInfo(r.data));
      } catch (e) { alert.error(e); }
    }, t('iv.up.reading'));
  });
  clear(root, h('section.card', h('h1', t('iv.up.title')),
    h('p.muted', t('iv.up.intro')), form));
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
    const file = h('input', { type: 'file', name: 'resumePdf', accept: RESUME_ACCEPT });
    const submit = h('button.btn', { type: 'submit' }, t('iv.ready.replace'));
    const form = h('form.stack',
      field(t('iv.ready.newFile'), file).wrap,
      alert.el, h('div.row', submit));
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
          const r = await withRetries(() => call(`${P}/sessions/${enc(sid)}/interview-questions`, { method: 'POST', form: fd }), alert);
          readyStep(root, sid, onCleanup, readyInfo(r.data));
          toast(t('iv.ready.replaced'), 'success');
        } catch (e) {
          alert.error(e);
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
  const answer = h('textarea', { rows: 7, maxlength: 5000, name: 'answerContent', required: true, placeholder: t('iv.q.placeholder') });
  const counter = h('small.muted', counterText(0));
  const submit = h('button.btn.btn-primary', { type: 'submit' }, t('iv.q.submit'));
  const voiceBtn = h('button.btn', { type: 'button', 'aria-pressed': 'false' }, t('iv.q.voice'));
  const voiceStatus = h('small.muted.voice-status', { 'aria-live': 'polite' });
  const voiceLang = h('select.voice-lang', { name: 'speechLanguage', 'aria-label': t('iv.q.speechLang') },
    SPEECH_LANGUAGES.map((l) => h('option', { value: l.tag, lang: l.tag }, l.label)));
  const voiceNotice = h('p.voice-notice', { id: 'voice-notice', role: 'status', hidden: true });
  const feedback = h('div.feedback', { 'aria-live': 'polite' });
  const runScore = h('p.muted');
  const finishBtn = h('button.btn', { type: 'button' }, t('iv.q.endEarly'));
  const finishCard = h('section.card.finish-card', { hidden: true },
    h('h2', t('iv.q.allDone')),
    h('p', t('iv.q.wellDone')),
    h('button.btn.btn-primary#finish', { type: 'button', onclick: (e) => finish(e.currentTarget) }, t('iv.q.finish')));

  const answerField = field(t('iv.q.answer'), answer);
  const questionCard = h('section.card.question-card',
    h('div.progress-row', progressText, badge), progressBar,
    qTitle, qText,
    h('form.stack', { onsubmit: (e) => { e.preventDefault(); submitAnswer(); } },
      answerField.wrap, h('div.row.between', h('div.row.voice-row', voiceLang, voiceBtn, voiceStatus), counter),
      voiceNotice,
      h('div.row', submit)));

  answer.addEventListener('input', () => { counter.textContent = counterText(answer.value.length); });

  function show(q) {
    cur = q;
    if (q.offline) noteOffline(true);
    if (q.finished || !q.questionNumber) {
      questionCard.hidden = true;
      finishCard.hidden = false;
      finishBtn.hidden = true;
      progressBar.value = total;
      finishCard.querySelector('button').focus();
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
    if (!langPicked) { voiceLang.value = guessLanguage(q.questionContent); updateVoiceLang(); }
    const key = `${sid}/${q.questionNumber}`;
    answer.value = drafts.get(key) || '';
    drafts.delete(key);
    counter.textContent = counterText(answer.value.length);
    if (q.totalScore !== null && q.totalScore !== undefined) runScore.textContent = t('iv.q.runningScore', { score: q.totalScore });
  }

  // The pending answer keeps its requestId so that a retry is the same request.
  let pending = null;
  async function submitAnswer() {
    const text = answer.value.trim();
    alert.clear();
    if (!text) { alert.info(t('iv.q.writeFirst')); answer.focus(); return; }
    if (recorder) await stopVoice();
    if (!pending || pending.qn !== cur.questionNumber || pending.text !== text) {
      pending = { qn: cur.questionNumber, text, requestId: randomId() };
    }
    const body = { questionNumber: pending.qn, answerContent: pending.text, requestId: pending.requestId };
    await busy(submit, async () => {
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
        pending = null;
        const d = r.data;
        showFeedback(d);
        show({ ...d, questionNumber: d.nextQuestionNumber, questionContent: d.nextQuestion, isFollowUp: d.isFollowUp, finished: d.finished || !d.nextQuestionNumber });
        if (!d.finished) qTitle.focus();
      } catch (e) {
        status.textContent = '';
        if (e instanceof ApiError && e.status === 409 && e.data && typeof e.data === 'object' && 'questionNumber' in e.data) {
          pending = null;
          const keep = answer.value;
          show(e.data);
          if (!e.data.finished) answer.value = keep;
          alert.info(e.data.questionNumber ? t('iv.q.currentN', { msg: e.message, qn: e.data.questionNumber }) : t('iv.q.current', { msg: e.message }));
        } else {
          alert.error(e);
        }
      }
    }, t('iv.q.evaluating'));
  }

  function showFeedback(d) {
    if (d.offline) noteOffline(true);
    clear(feedback, h('section.card.feedback-card',
      h('h3', t(/-F/i.test(d.questionNumber || '') ? 'iv.fb.followUp' : 'iv.fb.question', { qn: d.questionNumber }), d.offline ? offlineBadge() : null),
      h('p.score-line', h('strong.score', scoreText(d.score)), t('iv.fb.outOf'), d.level ? h('span.level', ` · ${levelLabel(d.level)}`) : null),
      d.scoreHidden ? h('p.muted', { 'data-user-content': '' }, d.scoreHidden) : null,
      h('p', { 'data-user-content': '' }, d.feedback || ''),
      d.totalScore !== null && d.totalScore !== undefined ? h('p.muted', t('iv.fb.running', { score: d.totalScore })) : null));
  }

  async function finish(btn) {
    await busy(btn, async () => {
      try {
        await withRetries(() => call(`${P}/sessions/${enc(sid)}/finish`, { method: 'PUT' }), alert);
        localStorage.removeItem(LAST_KEY);
        navigate(`/interview/report/${enc(sid)}`);
      } catch (e) { alert.error(e); }
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
  // candidate picks one; a language the server's recogniser cannot do
  // disables recording and says so before anything is recorded.
  let langPicked = false;
  let caps = null;
  function updateVoiceLang() {
    const notice = unsupportedNotice(caps, voiceLang.value);
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
  async function startVoice() {
    alert.clear();
    voiceStatus.textContent = t('iv.voice.connecting');
    try {
      const user = await currentUser();
      voicePrefix = answer.value ? `${answer.value.replace(/\s+$/, '')} ` : '';
      recorder = await startTranscription(user.id, {
        onText: (txt) => { answer.value = voicePrefix + txt; counter.textContent = counterText(answer.value.length); },
        onStatus: (s) => { voiceStatus.textContent = s; },
        onError: (m) => { voiceStatus.textContent = ''; alert.info(t('iv.voice.error', { msg: m })); stopVoice(); },
      }, voiceLang.value);
      voiceLang.disabled = true;
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
    if (r) {
      voiceStatus.textContent = t('iv.voice.finishing');
      await r.stop();
      voiceStatus.textContent = t('iv.voice.done');
    }
  }
  voiceBtn.addEventListener('click', () => (recorder ? stopVoice() : startVoice()));
  onCleanup(() => { if (recorder) recorder.stop(); });
  onCleanup(() => {
    if (cur && cur.questionNumber && !cur.finished && answer.value) drafts.set(`${sid}/${cur.questionNumber}`, answer.value);
  });

  const camera = cameraPanel(sid, alert, onCleanup);

  clear(root,
    h('div.interview-layout',
      h('div.interview-main',
        h('div.row.between', h('h1', t('iv.title'), restore.offline ? offlineBadge() : null), runScore),
        restore.interviewType ? h('p.muted', { 'data-user-content': '' }, restore.interviewType) : null,
        alert.el, status, questionCard, finishCard, feedback),
      h('aside.interview-side', camera, h('section.card', h('h2', t('iv.finish.title')), h('p.muted', t('iv.finish.intro')), finishBtn))));
  show(cur);
  if (!cur.finished) answer.focus();
}

function cameraPanel(sid, alert, onCleanup) {
  const video = h('video', { autoplay: true, muted: true, playsinline: true, 'aria-label': t('iv.cam.preview'), hidden: true });
  const canvas = h('canvas', { hidden: true });
  const onBtn = h('button.btn', { type: 'button' }, t('iv.cam.on'));
  const snapBtn = h('button.btn', { type: 'button', disabled: true }, t('iv.cam.snap'));
  const result = h('div.demeanor', { 'aria-live': 'polite' });
  let stream = null;
  const stop = () => {
    if (stream) stream.getTracks().forEach((t) => t.stop());
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
        clear(result, h('p.not-assessed', h('strong', t('iv.cam.notAssessed')), ' — ', d.message || t('iv.cam.noVision')));
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
  return h('section.card.camera',
    h('h2', t('iv.cam.title')),
    h('p.muted', t('iv.cam.intro')),
    video, canvas, h('div.row', onBtn, snapBtn), result);
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
    h('details', h('summary', t('iv.rep.yourAnswer')), h('p.answer', { 'data-user-content': '' }, p.answerContent)),
    p.scoreHidden ? h('p.muted', { 'data-user-content': '' }, p.scoreHidden) : null,
    p.feedback ? h('p.feedback-text', { 'data-user-content': '' }, p.feedback) : null,
    p.needsReview ? h('p.muted', t('iv.rep.review')) : null));

  const tiles = [
    ['iv.rep.tileInterview', rep.interviewScore], ['iv.rep.tileResume', rep.resumeScore], ['iv.rep.tileDemeanor', rep.demeanorScore],
    ['iv.rep.tilePotential', rep.radarChart ? rep.radarChart.potentialIndex : null],
  ].map(([key, v]) => h('div.tile', h('span.tile-value', scoreText(v)), h('span.tile-label', t(key)),
    key === 'iv.rep.tileDemeanor' && (v === null || v === undefined) ? h('small.muted', t('iv.rep.notAssessed')) : null));

  clear(root,
    h('section.card.report',
      h('div.row.between', h('h1', t('iv.reportTitle'), rep.offline ? offlineBadge() : null),
        h('a.btn', { href: '#/interview' }, t('iv.rep.new'))),
      h('p.muted', ...withUser('iv.rep.meta', {
        answers: rep.answeredCount ?? rep.playbackItems?.length ?? 0,
        minutes: Math.round((rep.durationSeconds || 0) / 60),
        time: fmtTime(rep.endTime),
      }, 'direction', rep.interviewDirection || '')),
      alert.el,
      h('div.tiles', ...tiles),
      h('div.report-grid', radarBox, h('div', h('h2', t('iv.rep.dimensions')), h('ul.dims', ...dims)))),
    h('section.card', h('h2', t('iv.rep.reviewTitle')), h('p.overall', { 'data-user-content': '' }, fb.overallComment || ''),
      listOf(t('iv.rep.highlights'), fb.highlights), listOf(t('iv.rep.improve'), fb.improvementTips), listOf(t('iv.rep.next'), fb.nextActions)),
    h('section.card', h('h2', t('iv.rep.playback')), playback.length ? h('ol.playback', ...playback) : h('p.muted', t('iv.rep.noAnswers'))));
}
