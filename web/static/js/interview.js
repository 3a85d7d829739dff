// The mock interview: start, resume upload, questions (typed or spoken
// answers), demeanor snapshots, finish, and the report.

import { ApiError, api, blobUrl, call, describeError, noteOffline, sleep } from './api.js';
import { currentUser, navigate } from './app.js';
import { SPEECH_LANGUAGES, guessLanguage, speechCapabilities, startTranscription, unsupportedNotice } from './speech.js';
import { alertBox, busy, clear, field, fmtTime, h, offlineBadge, scoreText, toast } from './ui.js';

const P = '/interview';
const LAST_KEY = 'aimeeting.interview.sid';
const enc = encodeURIComponent;

function randomId() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return `web-${[...b].map((x) => x.toString(16).padStart(2, '0')).join('')}`;
}

function mainNo(qn) { return parseInt(String(qn).split('-')[0], 10) || 0; }

// Resume uploads: PDF, TXT, MD, and photos or scans of a resume (read by OCR).
const RESUME_ACCEPT = '.pdf,.txt,.md,application/pdf,text/plain,text/markdown,image/jpeg,image/png,image/webp';
const MAX_RESUME_BYTES = 20 * 1024 * 1024;

/** "2 431" (narrow no-break space between thousands). */
function fmtCount(n) { return Number(n || 0).toLocaleString('en-US').replace(/,/g, '\u202f'); }

/** What the server read from the resume, as a sentence ("" when unknown). */
export function readSummaryText(read) {
  if (!read || !read.source) return '';
  const n = fmtCount(read.chars);
  const pages = read.pages ? ` from ${read.pages} page${read.pages === 1 ? '' : 's'}` : '';
  if (read.source === 'ocr') return `Read ${n} characters${pages} by OCR`;
  if (read.source === 'mixed') return `Read ${n} characters${pages} (text layer, ${read.ocrPages} page${read.ocrPages === 1 ? '' : 's'} by OCR)`;
  return read.pages ? `Read ${n} characters${pages} (text layer)` : `Read ${n} characters (plain text)`;
}

/** Sorted texts of a {no: text} map. */
function numberedTexts(m) {
  return Object.entries(m || {}).sort((a, b) => Number(a[0]) - Number(b[0])).map(([, t]) => t);
}

/** #/interview, #/interview/s/{sid}, #/interview/report/{sid} */
export async function interviewView(root, params) {
  document.title = 'Interview · AI-Meeting';
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
  const startBtn = h('button.btn.btn-primary', { type: 'button' }, 'Start a new interview');
  const resumeBox = h('div');
  const records = h('div');
  clear(root,
    h('section.card.hero',
      h('h1', 'Mock interview'),
      h('p', 'Upload your resume and an AI interviewer asks you questions about it. Answer by typing or by voice, get a score and feedback for every answer, and a full report at the end.'),
      resumeBox, alert.el, h('div.row', startBtn)),
    h('section.card', h('h2', 'Your reports'), records));

  startBtn.addEventListener('click', () => busy(startBtn, async () => {
    try {
      const s = await api(`${P}/sessions`, { method: 'POST' });
      noteOffline(s.offline);
      localStorage.setItem(LAST_KEY, s.sessionId);
      navigate(`/interview/s/${enc(s.sessionId)}`);
    } catch (e) { alert.error(e); }
  }, 'Starting…'));

  const resumable = await findResumable();
  if (resumable) {
    const go = h('button.btn.btn-primary', { type: 'button', onclick: () => navigate(`/interview/s/${enc(resumable.sessionId)}`) }, 'Resume it');
    clear(resumeBox, h('div.alert.alert-info', h('p', `You have an unfinished interview${resumable.interviewType ? ` (${resumable.interviewType})` : ''}. Resume where you left off, or start a new one (the unfinished one is then abandoned).`), go));
    startBtn.classList.remove('btn-primary');
  }
  try {
    const page = await api(`${P}/interview/records?current=1&size=10`);
    const rs = page.records || [];
    clear(records, rs.length ? h('ul.records', ...rs.map((r) => h('li',
      h('a', { href: `#/interview/report/${enc(r.sessionId)}` }, `${r.interviewDirection || 'Interview'} — score ${scoreText(r.interviewScore)}`),
      h('small.muted', ` ${fmtTime(r.endTime || r.startTime)}`), r.offline ? offlineBadge() : null))) : h('p.muted', 'No finished interviews yet.'));
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
    clear(root, h('section.card', h('h1', 'Interview'), alert.el, h('p', h('a', { href: '#/interview' }, 'Back to the interview page'))));
    return;
  }
  noteOffline(restore.offline);
  if (restore.status === 'FINISHED') { navigate(`/interview/report/${enc(sid)}`); return; }
  if (restore.status === 'ABANDONED') {
    localStorage.removeItem(LAST_KEY);
    alert.info('This interview was abandoned (a newer one was started). Start a new one.');
    clear(root, h('section.card', h('h1', 'Interview'), alert.el, h('p', h('a', { href: '#/interview' }, 'Back'))));
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
  const target = h('input', { name: 'confirmedTarget', maxlength: 100, placeholder: 'e.g. backend engineer' });
  const submit = h('button.btn.btn-primary', { type: 'submit' }, 'Upload and prepare questions');
  const form = h('form.stack',
    field('Resume (PDF, TXT or MD, or a photo or scan as JPEG, PNG or WebP; up to 20 MB)', file).wrap,
    field('Target role (optional)', target, 'Leave empty to let the interviewer infer it from your resume.').wrap,
    alert.el, h('div.row', submit));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    alert.clear();
    const f = file.files[0];
    if (!f) { alert.info('Choose your resume file first.'); file.focus(); return; }
    if (f.size > MAX_RESUME_BYTES) { alert.info('That file is larger than 20 MB.'); return; }
    await busy(submit, async () => {
      const fd = new FormData();
      fd.append('resumePdf', f);
      if (target.value.trim()) fd.append('confirmedTarget', target.value.trim());
      try {
        const r = await withRetries(() => call(`${P}/sessions/${enc(sid)}/interview-questions`, { method: 'POST', form: fd }), alert);
        readyStep(root, sid, onCleanup, readyInfo(r.data));
      } catch (e) { alert.error(e); }
    }, 'Reading your resume…');
  });
  clear(root, h('section.card', h('h1', 'Upload your resume'),
    h('p.muted', 'The interviewer reads it and prepares 5 to 8 questions about your experience.'), form));
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
  const title = h('h1', { tabindex: '-1' }, 'Your interview is ready', info.offline ? offlineBadge() : null);
  const begin = h('button.btn.btn-primary', { type: 'button' }, 'Begin the interview');
  begin.addEventListener('click', () => {
    window.scrollTo(0, 0);
    questionStep(root, sid, onCleanup, { offline: info.offline, interviewType: info.direction });
  });
  const summary = h('section.card.summary',
    title,
    readText ? h(little ? 'p.read-summary.read-little' : 'p.read-summary', { 'aria-live': 'polite' }, h('span.read-text', readText),
      little ? h('span.read-hint', ' — that is little for a resume; check the file, or replace it below.') : null) : null,
    h('dl.facts',
      h('dt', 'Direction'), h('dd', info.direction || '—'),
      h('dt', 'Resume score'), h('dd', scoreText(info.resumeScore)),
      h('dt', 'Questions'), h('dd', String(questions.length))),
    questions.length ? h('details.question-preview', h('summary', `Preview the ${questions.length} questions`),
      h('ol', ...questions.map((t) => h('li', t)))) : null,
    suggestionsList(info.suggestions),
    h('div.row', begin));

  let replaceCard = null;
  if (info.canReplace) {
    const alert = alertBox();
    const file = h('input', { type: 'file', name: 'resumePdf', accept: RESUME_ACCEPT });
    const submit = h('button.btn', { type: 'submit' }, 'Replace resume');
    const form = h('form.stack',
      field('New resume (PDF, TXT, MD or a photo, up to 20 MB)', file).wrap,
      alert.el, h('div.row', submit));
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      alert.clear();
      const f = file.files[0];
      if (!f) { alert.info('Choose the new resume file first.'); file.focus(); return; }
      if (f.size > MAX_RESUME_BYTES) { alert.info('That file is larger than 20 MB.'); return; }
      await busy(submit, async () => {
        const fd = new FormData();
        fd.append('resumePdf', f);
        try {
          const r = await withRetries(() => call(`${P}/sessions/${enc(sid)}/interview-questions`, { method: 'POST', form: fd }), alert);
          readyStep(root, sid, onCleanup, readyInfo(r.data));
          toast('Resume replaced: the questions were prepared again from the new file.', 'success');
        } catch (e) {
          alert.error(e);
          // The interview was started elsewhere: replacing is over.
          if (e instanceof ApiError && e.status === 409 && /started/.test(e.message || '')) form.hidden = true;
        }
      }, 'Reading your resume…');
    });
    replaceCard = h('section.card.replace-card',
      h('h2', 'Wrong file? Replace your resume'),
      h('p.muted', 'Until you begin, a new upload replaces this resume and the questions are prepared again. Once the interview has started the resume stays.'),
      form);
  }
  clear(root, summary, replaceCard);
  title.focus();
}

function suggestionsList(sugg) {
  const items = numberedTexts(sugg);
  if (!items.length) return null;
  return h('div', h('h3', 'Resume suggestions'), h('ul', ...items.map((t) => h('li', t))));
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
    clear(root, h('section.card', h('h1', 'Interview'), alert.el));
    return;
  }

  const progressText = h('p.progress-text');
  const progressBar = h('progress', { max: Math.max(total, 1), value: 0, 'aria-label': 'Interview progress' });
  const badge = h('span.badge.badge-followup', { hidden: true }, 'Follow-up');
  const qTitle = h('h2.question-title', { tabindex: '-1' });
  const qText = h('p.question-text');
  const answer = h('textarea', { rows: 7, maxlength: 5000, name: 'answerContent', required: true, placeholder: 'Type your answer, or use the microphone and edit the transcript before sending.' });
  const counter = h('small.muted', '0 / 5000');
  const submit = h('button.btn.btn-primary', { type: 'submit' }, 'Submit answer');
  const voiceBtn = h('button.btn', { type: 'button', 'aria-pressed': 'false' }, '● Answer by voice');
  const voiceStatus = h('small.muted.voice-status', { 'aria-live': 'polite' });
  const voiceLang = h('select.voice-lang', { name: 'speechLanguage', 'aria-label': 'Speech language' },
    SPEECH_LANGUAGES.map((l) => h('option', { value: l.tag, lang: l.tag }, l.label)));
  const voiceNotice = h('p.voice-notice', { id: 'voice-notice', role: 'status', hidden: true });
  const feedback = h('div.feedback', { 'aria-live': 'polite' });
  const runScore = h('p.muted');
  const finishBtn = h('button.btn', { type: 'button' }, 'End interview early');
  const finishCard = h('section.card.finish-card', { hidden: true },
    h('h2', 'All questions answered'),
    h('p', 'Well done. Finish the interview to get your report.'),
    h('button.btn.btn-primary#finish', { type: 'button', onclick: (e) => finish(e.currentTarget) }, 'Finish and see the report'));

  const answerField = field('Your answer', answer);
  const questionCard = h('section.card.question-card',
    h('div.progress-row', progressText, badge), progressBar,
    qTitle, qText,
    h('form.stack', { onsubmit: (e) => { e.preventDefault(); submitAnswer(); } },
      answerField.wrap, h('div.row.between', h('div.row.voice-row', voiceLang, voiceBtn, voiceStatus), counter),
      voiceNotice,
      h('div.row', submit)));

  answer.addEventListener('input', () => { counter.textContent = `${answer.value.length} / 5000`; });

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
    progressText.textContent = total ? `Question ${n} of ${total}` : `Question ${n}`;
    progressBar.value = Math.max(0, n - 1);
    badge.hidden = !q.isFollowUp;
    badge.textContent = q.isFollowUp ? `Follow-up to question ${n}` : 'Follow-up';
    qTitle.textContent = q.isFollowUp ? `Follow-up question (${q.questionNumber})` : `Question ${q.questionNumber}`;
    qText.textContent = q.questionContent;
    if (!langPicked) { voiceLang.value = guessLanguage(q.questionContent); updateVoiceLang(); }
    answer.value = '';
    counter.textContent = '0 / 5000';
    if (q.totalScore !== null && q.totalScore !== undefined) runScore.textContent = `Running score: ${q.totalScore}`;
  }

  // The pending answer keeps its requestId so that a retry is the same request.
  let pending = null;
  async function submitAnswer() {
    const text = answer.value.trim();
    alert.clear();
    if (!text) { alert.info('Write or speak an answer first.'); answer.focus(); return; }
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
          if (attempt >= 30) throw new Error('The answer is still being evaluated. Try again in a moment.');
          status.textContent = 'Still evaluating — retrying…';
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
          alert.info(`${e.message}. Showing the current question${e.data.questionNumber ? ` (${e.data.questionNumber})` : ''}.`);
        } else {
          alert.error(e);
        }
      }
    }, 'Evaluating…');
  }

  function showFeedback(d) {
    if (d.offline) noteOffline(true);
    clear(feedback, h('section.card.feedback-card',
      h('h3', `Feedback on ${/-F/i.test(d.questionNumber || '') ? 'follow-up' : 'question'} ${d.questionNumber}`, d.offline ? offlineBadge() : null),
      h('p.score-line', h('strong.score', scoreText(d.score)), ' / 100', d.level ? h('span.level', ` · ${d.levelText || d.level}`) : null),
      d.scoreHidden ? h('p.muted', d.scoreHidden) : null,
      h('p', d.feedback || ''),
      d.totalScore !== null && d.totalScore !== undefined ? h('p.muted', `Running interview score: ${d.totalScore}`) : null));
  }

  async function finish(btn) {
    await busy(btn, async () => {
      try {
        await withRetries(() => call(`${P}/sessions/${enc(sid)}/finish`, { method: 'PUT' }), alert);
        localStorage.removeItem(LAST_KEY);
        navigate(`/interview/report/${enc(sid)}`);
      } catch (e) { alert.error(e); }
    }, 'Building the report…');
  }
  let confirmEnd = false;
  finishBtn.addEventListener('click', () => {
    if (!confirmEnd) {
      confirmEnd = true;
      finishBtn.textContent = 'Click again to end now';
      setTimeout(() => { confirmEnd = false; finishBtn.textContent = 'End interview early'; }, 4000);
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
    voiceStatus.textContent = 'Connecting…';
    try {
      const user = await currentUser();
      voicePrefix = answer.value ? `${answer.value.replace(/\s+$/, '')} ` : '';
      recorder = await startTranscription(user.id, {
        onText: (t) => { answer.value = voicePrefix + t; counter.textContent = `${answer.value.length} / 5000`; },
        onStatus: (s) => { voiceStatus.textContent = s; },
        onError: (m) => { voiceStatus.textContent = ''; alert.info(`Voice input: ${m}`); stopVoice(); },
      }, voiceLang.value);
      voiceLang.disabled = true;
      voiceBtn.textContent = '■ Stop recording';
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
    voiceBtn.textContent = '● Answer by voice';
    voiceBtn.setAttribute('aria-pressed', 'false');
    voiceBtn.classList.remove('recording');
    voiceLang.disabled = false;
    if (r) {
      voiceStatus.textContent = 'Finishing the transcript…';
      await r.stop();
      voiceStatus.textContent = 'Done — check and edit the text before sending.';
    }
  }
  voiceBtn.addEventListener('click', () => (recorder ? stopVoice() : startVoice()));
  onCleanup(() => { if (recorder) recorder.stop(); });

  const camera = cameraPanel(sid, alert, onCleanup);

  clear(root,
    h('div.interview-layout',
      h('div.interview-main',
        h('div.row.between', h('h1', 'Interview', restore.offline ? offlineBadge() : null), runScore),
        restore.interviewType ? h('p.muted', restore.interviewType) : null,
        alert.el, status, questionCard, finishCard, feedback),
      h('aside.interview-side', camera, h('section.card', h('h2', 'Finish'), h('p.muted', 'You can end the interview at any time; unanswered questions are left out of the report.'), finishBtn))));
  show(cur);
  if (!cur.finished) answer.focus();
}

function cameraPanel(sid, alert, onCleanup) {
  const video = h('video', { autoplay: true, muted: true, playsinline: true, 'aria-label': 'Camera preview', hidden: true });
  const canvas = h('canvas', { hidden: true });
  const onBtn = h('button.btn', { type: 'button' }, 'Turn on camera');
  const snapBtn = h('button.btn', { type: 'button', disabled: true }, 'Take a snapshot');
  const result = h('div.demeanor', { 'aria-live': 'polite' });
  let stream = null;
  const stop = () => {
    if (stream) stream.getTracks().forEach((t) => t.stop());
    stream = null;
    video.srcObject = null;
    video.hidden = true;
    snapBtn.disabled = true;
    onBtn.textContent = 'Turn on camera';
  };
  onCleanup(stop);
  onBtn.addEventListener('click', async () => {
    if (stream) { stop(); return; }
    try {
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) throw new Error('This browser cannot use the camera here (a secure https:// page is needed).');
      stream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
      video.srcObject = stream;
      video.hidden = false;
      snapBtn.disabled = false;
      onBtn.textContent = 'Turn off camera';
    } catch (e) {
      alert.info(e && e.name === 'NotAllowedError' ? 'Camera access was denied — demeanor is then not assessed.' : `Cannot open the camera: ${e.message || e.name}`);
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
        clear(result, h('p.not-assessed', h('strong', 'Not assessed'), ` — ${d.message || 'the current model cannot see images.'}`));
      } else {
        clear(result, h('dl.facts',
          h('dt', 'Composure (panic level)'), h('dd', scoreText(d.panicLevel)),
          h('dt', 'Seriousness'), h('dd', scoreText(d.seriousnessLevel)),
          h('dt', 'Expression'), h('dd', scoreText(d.emoticonHandling)),
          h('dt', 'Composite'), h('dd', scoreText(d.compositeScore)),
          h('dt', 'Session average'), h('dd', `${scoreText(d.sessionComposite)} (${d.photoCount} photos)`)));
      }
    } catch (e) { alert.error(e); }
  }, 'Assessing…'));
  return h('section.card.camera',
    h('h2', 'Demeanor'),
    h('p.muted', 'Optional: a snapshot from your camera lets the AI assess your composure.'),
    video, canvas, h('div.row', onBtn, snapBtn), result);
}

// ---------------------------------------------------------------- report

async function reportView(root, sid, onCleanup) {
  document.title = 'Interview report · AI-Meeting';
  const alert = alertBox();
  let rep;
  try {
    rep = await api(`${P}/interview/record/${enc(sid)}`);
  } catch (e) {
    alert.error(e);
    clear(root, h('section.card', h('h1', 'Interview report'), alert.el, h('p', h('a', { href: '#/interview' }, 'Back'))));
    return;
  }
  noteOffline(rep.offline);
  const radarImg = h('img.radar', { alt: 'Radar chart of the five report dimensions', width: 420, height: 420 });
  const radarBox = h('figure.radar-box', radarImg, h('figcaption.muted', 'Resume, interview performance, demeanor, professional skills and potential'));
  blobUrl(`${P}/sessions/${enc(sid)}/radar-chart.svg`).then((url) => {
    radarImg.src = url;
    onCleanup(() => URL.revokeObjectURL(url));
  }).catch((e) => { clear(radarBox, h('p.muted', `Radar chart unavailable: ${describeError(e)}`)); });

  const dims = (rep.radarDimensions || []).map((d) => h('li.dim',
    h('span.dim-label', d.label),
    d.score === null || d.score === undefined
      ? h('span.muted', 'not assessed')
      : [h('meter', { min: 0, max: 100, low: 60, high: 85, optimum: 100, value: d.score, 'aria-label': d.label }), h('span.dim-score', String(d.score))]));
  const fb = rep.reviewFeedback || {};
  const listOf = (title, items) => (items && items.length ? h('div', h('h3', title), h('ul', ...items.map((t) => h('li', t)))) : null);
  const playback = (rep.playbackItems || []).map((p) => h(p.isFollowUp ? 'li.playback-item.followup' : 'li.playback-item',
    h('div.row.between',
      h('h3', p.isFollowUp ? `Follow-up ${p.questionNumber}` : `Question ${p.questionNumber}`, p.isFollowUp ? h('span.badge.badge-followup', 'follow-up') : null),
      h('span.score-pill', `${scoreText(p.score)}${p.level ? ` · ${p.levelText || p.level}` : ''}`)),
    h('p.q', p.questionContent),
    h('details', h('summary', 'Your answer'), h('p.answer', p.answerContent)),
    p.scoreHidden ? h('p.muted', p.scoreHidden) : null,
    p.feedback ? h('p.feedback-text', p.feedback) : null,
    p.needsReview ? h('p.muted', 'This score is flagged for a human review.') : null));

  const tiles = [
    ['Interview', rep.interviewScore], ['Resume', rep.resumeScore], ['Demeanor', rep.demeanorScore],
    ['Potential', rep.radarChart ? rep.radarChart.potentialIndex : null],
  ].map(([label, v]) => h('div.tile', h('span.tile-value', v === null || v === undefined ? '—' : String(v)), h('span.tile-label', label),
    label === 'Demeanor' && (v === null || v === undefined) ? h('small.muted', 'not assessed') : null));

  clear(root,
    h('section.card.report',
      h('div.row.between', h('h1', 'Interview report', rep.offline ? offlineBadge() : null),
        h('a.btn', { href: '#/interview' }, 'New interview')),
      h('p.muted', `${rep.interviewDirection || ''} · ${rep.answeredCount ?? rep.playbackItems?.length ?? 0} answers · ${Math.round((rep.durationSeconds || 0) / 60)} min · ${fmtTime(rep.endTime)}`),
      alert.el,
      h('div.tiles', ...tiles),
      h('div.report-grid', radarBox, h('div', h('h2', 'Dimensions'), h('ul.dims', ...dims)))),
    h('section.card', h('h2', 'Review'), h('p.overall', fb.overallComment || ''),
      listOf('Highlights', fb.highlights), listOf('To improve', fb.improvementTips), listOf('Next steps', fb.nextActions)),
    h('section.card', h('h2', 'Playback'), playback.length ? h('ol.playback', ...playback) : h('p.muted', 'No answers were given.')));
}
