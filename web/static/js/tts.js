// Long-text speech synthesis: create a task, follow its progress over SSE,
// play and download the audio.

import { api, blobUrl, describeError, getUser, openStream, sleep, sseEvents } from './api.js';
import { fmtNumber, t } from './i18n.js';
import './i18n/tts.js';
import { alertBox, busy, clear, field, fmtTime, h } from './ui.js';

const T = '/xunfei/tts';
const enc = encodeURIComponent;
/** A task status (1 created, 3 running, 4 failed, 5 done) in the page's language. */
const statusText = (s) => ([1, 3, 4, 5].includes(s) ? t(`tts.status.${s}`) : String(s));
const running = (s) => s === 1 || s === 3;

// The task being followed is remembered in this browser (per user), so
// that a reload follows it again.
const taskKey = () => `aimeeting.tts.task.${(getUser() || {}).username || ''}`;
const remember = (id) => { try { localStorage.setItem(taskKey(), id); } catch { /* private mode */ } };
const forget = () => { try { localStorage.removeItem(taskKey()); } catch { /* private mode */ } };
const remembered = () => { try { return localStorage.getItem(taskKey()) || ''; } catch { return ''; } };

export async function ttsView(root) {
  document.title = t('shell.title', { page: t('tts.title') });
  const urls = [];
  let controller = null;
  const alert = alertBox();
  const text = h('textarea', { rows: 8, maxlength: 100000, required: true, placeholder: t('tts.placeholder') });
  const counterText = (n) => `${fmtNumber(n)} / ${fmtNumber(100000)}`;
  const count = h('small.muted', counterText(0));
  text.addEventListener('input', () => { count.textContent = counterText(text.value.length); });
  const voice = h('select', { name: 'vcn' },
    h('option', { value: '' }, t('tts.voiceAuto')),
    h('option', { value: 'en-us' }, t('tts.voiceEnUS')),
    h('option', { value: 'en-gb' }, t('tts.voiceEnGB')),
    h('option', { value: 'en-us+f3' }, t('tts.voiceEnUSF')),
    h('option', { value: 'cmn' }, t('tts.voiceCmn')));
  const language = h('select', { name: 'language' },
    h('option', { value: 'auto' }, t('tts.detect')), h('option', { value: 'en' }, t('tts.english')), h('option', { value: 'zh' }, t('tts.chinese')));
  const speed = h('input', { type: 'range', min: 0, max: 100, value: 50, name: 'speed' });
  const format = h('select', { name: 'audioEncoding' }, h('option', { value: 'wav' }, 'WAV'), h('option', { value: 'mp3' }, 'MP3'));
  const submit = h('button.btn.btn-primary', { type: 'submit' }, t('tts.synthesize'));
  const cancel = h('button.btn', { type: 'button', hidden: true }, t('tts.cancel'));

  const progress = h('progress#tts-progress', { max: 100, value: 0, 'aria-label': t('tts.progressLabel') });
  const progressText = h('span#tts-progress-text', { 'aria-live': 'polite' }, '');
  const audio = h('audio#tts-audio', { controls: true, preload: 'auto', hidden: true });
  const download = h('a.btn#tts-download', { hidden: true }, t('tts.download'));
  const resultCard = h('section.card', { hidden: true },
    h('h2', t('tts.progress')), h('div.progress-wrap', progress, progressText), audio, h('div.row', download));
  const tasks = h('div');

  async function showAudio(task) {
    const url = await blobUrl(`${T}/tasks/${enc(task.taskId)}/audio`);
    urls.push(url);
    audio.src = url;
    audio.hidden = false;
    download.href = url;
    download.setAttribute('download', `speech-${task.taskId}.${task.audioEncoding || 'wav'}`);
    download.hidden = false;
  }

  function setProgress(task) {
    const p = Math.max(0, Math.min(100, task.progress || 0));
    progress.value = p;
    const segs = task.segmentsTotal ? t('tts.segments', { done: task.segmentsDone, total: task.segmentsTotal }) : '';
    progressText.textContent = t('tts.progressText', { p, status: statusText(task.taskStatus), segs });
  }

  async function follow(taskId) {
    if (controller) controller.abort();
    const c = new AbortController();
    controller = c;
    remember(taskId);
    resultCard.hidden = false;
    cancel.hidden = false;
    let final = null;
    try {
      const res = await openStream(`${T}/tasks/${enc(taskId)}/events`, undefined, c.signal);
      for await (const ev of sseEvents(res, c.signal)) {
        if (ev.event === 'progress' || ev.event === 'done' || ev.event === 'failed') setProgress(ev.data);
        if (ev.event === 'done' || ev.event === 'failed') { final = ev.data; break; }
        if (ev.event === 'error') throw new Error(ev.data && ev.data.message ? ev.data.message : t('tts.streamFailed'));
      }
      // The stream ended early (a proxy cut it?): poll until the task ends.
      while (!final || final.taskStatus === 1 || final.taskStatus === 3) {
        if (final) await sleep(1000, c.signal);
        final = await api(`${T}/tasks/${enc(taskId)}`);
        setProgress(final);
      }
      setProgress(final);
      forget();
      if (final.taskStatus === 5) await showAudio(final);
      else if (final.taskStatus === 4) alert.error(new Error(t('tts.failed', { msg: final.errorMessage || t('tts.unknownError') })));
    } catch (e) {
      if (e.name !== 'AbortError') alert.error(e);
    } finally {
      c.abort();
      if (controller === c) {
        controller = null;
        cancel.hidden = true;
        loadTasks();
      }
    }
  }

  const form = h('form.stack',
    field(t('tts.text'), text).wrap, count,
    h('div.grid-3', field(t('tts.voice'), voice).wrap, field(t('tts.language'), language).wrap, field(t('tts.format'), format).wrap),
    field(t('tts.speed'), speed, t('tts.speedHint')).wrap,
    alert.el, h('div.row', submit, cancel));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    alert.clear();
    if (!text.value.trim()) { alert.info(t('tts.enterText')); text.focus(); return; }
    await busy(submit, async () => {
      try {
        const body = { text: text.value, speed: Number(speed.value), audioEncoding: format.value };
        if (voice.value) body.vcn = voice.value;
        if (language.value !== 'auto') body.language = language.value;
        const task = await api(`${T}/tasks`, { method: 'POST', body });
        audio.hidden = true;
        download.hidden = true;
        resultCard.hidden = false;
        setProgress(task);
        await follow(task.taskId);
      } catch (e) { alert.error(e); }
    }, t('tts.synthesizing'));
  });
  // Cancel stops following (the task is forgotten); leaving the page does
  // not, so coming back or reloading follows it again.
  cancel.addEventListener('click', () => { forget(); if (controller) controller.abort(); });

  /** After a reload: follow the task this browser started, while it runs. */
  async function resume() {
    const id = remembered();
    if (!id) return;
    try {
      const task = await api(`${T}/tasks/${enc(id)}`);
      if (!running(task.taskStatus)) { forget(); return; }
      resultCard.hidden = false;
      setProgress(task);
      alert.info(t('tts.resumed'));
      await follow(id);
    } catch { forget(); /* gone or not ours: nothing to follow */ }
  }

  async function loadTasks() {
    try {
      const page = await api(`${T}/tasks?current=1&size=10`);
      const rs = page.records || [];
      clear(tasks, rs.length ? h('ul.records', ...rs.map((task) => h('li',
        h('span', h('span', { 'data-user-content': '' }, task.textPreview || task.taskId), t('tts.taskLine', { status: statusText(task.taskStatus), p: task.progress || 0 })),
        h('small.muted', ` ${fmtTime(task.createTime)} `),
        task.taskStatus === 5 ? h('button.btn.btn-small', { type: 'button', onclick: async (e) => {
          await busy(e.currentTarget, async () => {
            try { resultCard.hidden = false; setProgress(task); await showAudio(task); audio.focus(); } catch (err) { alert.error(err); }
          });
        } }, t('tts.play')) : null,
        running(task.taskStatus) && !controller ? h('button.btn.btn-small', { type: 'button', onclick: () => {
          audio.hidden = true; download.hidden = true; setProgress(task); follow(task.taskId);
        } }, t('tts.follow')) : null))) : h('p.muted', t('tts.noTasks')));
    } catch (e) { clear(tasks, h('p.muted', describeError(e))); }
  }

  clear(root,
    h('section.card', h('h1', t('tts.title')), h('p.muted', t('tts.intro')), form),
    resultCard,
    h('section.card', h('h2', t('tts.recent')), tasks));
  loadTasks();
  resume();
  return () => { if (controller) controller.abort(); urls.forEach((u) => URL.revokeObjectURL(u)); };
}
