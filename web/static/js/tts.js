// Long-text speech synthesis: create a task, follow its progress over SSE,
// play and download the audio.

import { api, blobUrl, describeError, openStream, sleep, sseEvents } from './api.js';
import { alertBox, busy, clear, field, fmtTime, h } from './ui.js';

const T = '/xunfei/tts';
const enc = encodeURIComponent;
const STATUS = { 1: 'created', 3: 'running', 4: 'failed', 5: 'done' };

export async function ttsView(root) {
  document.title = 'Speech synthesis · AI-Meeting';
  const urls = [];
  let controller = null;
  const alert = alertBox();
  const text = h('textarea', { rows: 8, maxlength: 100000, required: true, placeholder: 'Paste the text to read aloud (up to 100,000 characters).' });
  const count = h('small.muted', '0 / 100000');
  text.addEventListener('input', () => { count.textContent = `${text.value.length} / 100000`; });
  const voice = h('select', { name: 'vcn' },
    h('option', { value: '' }, 'Automatic (by language)'),
    h('option', { value: 'en-us' }, 'English (US)'),
    h('option', { value: 'en-gb' }, 'English (UK)'),
    h('option', { value: 'en-us+f3' }, 'English (US), female'),
    h('option', { value: 'cmn' }, 'Mandarin Chinese'));
  const language = h('select', { name: 'language' },
    h('option', { value: 'auto' }, 'Detect'), h('option', { value: 'en' }, 'English'), h('option', { value: 'zh' }, 'Chinese'));
  const speed = h('input', { type: 'range', min: 0, max: 100, value: 50, name: 'speed' });
  const format = h('select', { name: 'audioEncoding' }, h('option', { value: 'wav' }, 'WAV'), h('option', { value: 'mp3' }, 'MP3'));
  const submit = h('button.btn.btn-primary', { type: 'submit' }, 'Synthesize');
  const cancel = h('button.btn', { type: 'button', hidden: true }, 'Cancel');

  const progress = h('progress#tts-progress', { max: 100, value: 0, 'aria-label': 'Synthesis progress' });
  const progressText = h('span#tts-progress-text', { 'aria-live': 'polite' }, '');
  const audio = h('audio#tts-audio', { controls: true, preload: 'auto', hidden: true });
  const download = h('a.btn#tts-download', { hidden: true }, 'Download audio');
  const resultCard = h('section.card', { hidden: true },
    h('h2', 'Progress'), h('div.progress-wrap', progress, progressText), audio, h('div.row', download));
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

  function setProgress(t) {
    const p = Math.max(0, Math.min(100, t.progress || 0));
    progress.value = p;
    const segs = t.segmentsTotal ? ` · ${t.segmentsDone}/${t.segmentsTotal} segments` : '';
    progressText.textContent = `${p} % · ${STATUS[t.taskStatus] || t.taskStatus}${segs}`;
  }

  async function follow(taskId) {
    controller = new AbortController();
    cancel.hidden = false;
    let final = null;
    try {
      const res = await openStream(`${T}/tasks/${enc(taskId)}/events`, undefined, controller.signal);
      for await (const ev of sseEvents(res, controller.signal)) {
        if (ev.event === 'progress' || ev.event === 'done' || ev.event === 'failed') setProgress(ev.data);
        if (ev.event === 'done' || ev.event === 'failed') { final = ev.data; break; }
        if (ev.event === 'error') throw new Error(ev.data && ev.data.message ? ev.data.message : 'progress stream failed');
      }
      // The stream ended early (a proxy cut it?): poll until the task ends.
      while (!final || final.taskStatus === 1 || final.taskStatus === 3) {
        if (final) await sleep(1000, controller.signal);
        final = await api(`${T}/tasks/${enc(taskId)}`);
        setProgress(final);
      }
      setProgress(final);
      if (final.taskStatus === 5) await showAudio(final);
      else if (final.taskStatus === 4) alert.error(new Error(`Synthesis failed: ${final.errorMessage || 'unknown error'}`));
    } catch (e) {
      if (e.name !== 'AbortError') alert.error(e);
    } finally {
      controller.abort();
      controller = null;
      cancel.hidden = true;
      loadTasks();
    }
  }

  const form = h('form.stack',
    field('Text', text).wrap, count,
    h('div.grid-3', field('Voice', voice).wrap, field('Language', language).wrap, field('Format', format).wrap),
    field('Speed', speed, 'Slower ← 50 → faster').wrap,
    alert.el, h('div.row', submit, cancel));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    alert.clear();
    if (!text.value.trim()) { alert.info('Enter some text first.'); text.focus(); return; }
    await busy(submit, async () => {
      try {
        const body = { text: text.value, speed: Number(speed.value), audioEncoding: format.value };
        if (voice.value) body.vcn = voice.value;
        if (language.value !== 'auto') body.language = language.value;
        const t = await api(`${T}/tasks`, { method: 'POST', body });
        audio.hidden = true;
        download.hidden = true;
        resultCard.hidden = false;
        setProgress(t);
        await follow(t.taskId);
      } catch (e) { alert.error(e); }
    }, 'Synthesizing…');
  });
  cancel.addEventListener('click', () => controller && controller.abort());

  async function loadTasks() {
    try {
      const page = await api(`${T}/tasks?current=1&size=10`);
      const rs = page.records || [];
      clear(tasks, rs.length ? h('ul.records', ...rs.map((t) => h('li',
        h('span', `${t.textPreview || t.taskId} — ${STATUS[t.taskStatus] || t.taskStatus}, ${t.progress} %`),
        h('small.muted', ` ${fmtTime(t.createTime)} `),
        t.taskStatus === 5 ? h('button.btn.btn-small', { type: 'button', onclick: async (e) => {
          await busy(e.currentTarget, async () => {
            try { resultCard.hidden = false; setProgress(t); await showAudio(t); audio.focus(); } catch (err) { alert.error(err); }
          });
        } }, 'Play') : null))) : h('p.muted', 'No tasks yet.'));
    } catch (e) { clear(tasks, h('p.muted', describeError(e))); }
  }

  clear(root,
    h('section.card', h('h1', 'Speech synthesis'), h('p.muted', 'Turn long text into speech. Long texts are split into segments; the bar shows the real progress.'), form),
    resultCard,
    h('section.card', h('h2', 'Recent tasks'), tasks));
  loadTasks();
  return () => { if (controller) controller.abort(); urls.forEach((u) => URL.revokeObjectURL(u)); };
}
