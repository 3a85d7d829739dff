// Live transcription: microphone → AudioWorklet (16 kHz mono s16le) →
// WebSocket /xunfei/audio-to-text/{userId}; the server's partial and final
// transcripts are handed to onText.

import { BASE, api, getToken } from './api.js';
import { t } from './i18n.js';
import './i18n/speech.js';

/**
 * Recognition languages the page offers, by tag; label is the language's
 * own name (shown with its lang attribute), its name in the page's
 * language is t(`sp.lang.${tag}`).
 */
export const SPEECH_LANGUAGES = [
  { tag: 'zh-CN', label: '中文' },
  { tag: 'en', label: 'English' },
];

let capabilities = null;
/**
 * The server's recogniser and the languages it recognises:
 * {provider, languages: ['en', ...]}, fetched once; null when unknown
 * (the server is then left to refuse).
 */
export async function speechCapabilities() {
  if (!capabilities) {
    capabilities = api('/speech/capabilities').catch(() => { capabilities = null; return null; });
  }
  return capabilities;
}

/**
 * The language a question is most likely answered in: Chinese when Han
 * characters make up most of its letters, else English.
 */
export function guessLanguage(text) {
  const han = (String(text || '').match(/\p{Script=Han}/gu) || []).length;
  const latin = (String(text || '').match(/\p{Script=Latin}/gu) || []).length;
  // A Han character carries about a word: weigh it against a short word.
  return han > 0 && han * 3 >= latin ? 'zh-CN' : 'en';
}

/**
 * The sentence to show before recording when the recogniser cannot do
 * lang, or '' when it can (or its languages are unknown).
 */
export function unsupportedNotice(caps, lang) {
  if (!caps || !Array.isArray(caps.languages) || caps.languages.includes(lang)) return '';
  const names = SPEECH_LANGUAGES.filter((l) => caps.languages.includes(l.tag));
  if (!names.length) return t('sp.none');
  const langs = names.map((l) => t(`sp.lang.${l.tag}`));
  return t('sp.only', { langs: langs.join(t('sp.and')), choose: langs.join(t('sp.or')) });
}

/**
 * Starts a transcription. handlers: {onText(fullText, {final, committed, live}),
 * onStatus(text), onError(message), onLevel(0..1)}; language: the spoken
 * language's tag ('zh-CN', 'en'), or '' to leave it to the server. onLevel
 * gets the microphone's input level about ten times a second while
 * recording (0 once stopped). Returns {stop(): Promise<string>} with the
 * final text ('' when nothing was recognised).
 */
export async function startTranscription(userId, handlers, language = '') {
  const { onText = () => {}, onStatus = () => {}, onError = () => {}, onLevel = () => {} } = handlers;
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    throw new Error(t('sp.noMic'));
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true },
      video: false,
    });
  } catch (e) {
    throw new Error(e && e.name === 'NotAllowedError'
      ? t('sp.denied')
      : t('sp.cannotOpen', { msg: e.message || e.name }));
  }
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  // The token travels as a subprotocol next to the fixed protocol name,
  // which is all the server answers: it stays out of URLs (access logs,
  // history) and is never echoed back.
  const url = `${proto}//${location.host}${BASE}/xunfei/audio-to-text/${encodeURIComponent(userId)}`;
  const ws = new WebSocket(url, ['aimeeting.v1', getToken()]);
  ws.binaryType = 'arraybuffer';
  let ctx; let node; let source; let analyser; let meter = 0;
  let released = false;
  let lastText = '';
  let finalResolve;
  const finalSeen = new Promise((r) => { finalResolve = r; });
  let opened = false;

  // release runs on stop and again on the socket's close; it acts once,
  // since closing an AudioContext that is closed or closing throws
  // InvalidStateError.
  const release = () => {
    if (released) return;
    released = true;
    if (meter) clearInterval(meter);
    meter = 0;
    onLevel(0);
    try { node && node.disconnect(); } catch { /* ignore */ }
    try { source && source.disconnect(); } catch { /* ignore */ }
    try { analyser && analyser.disconnect(); } catch { /* ignore */ }
    if (ctx && ctx.state !== 'closed') ctx.close().catch(() => {});
    stream.getTracks().forEach((t) => t.stop());
  };

  ws.addEventListener('message', (ev) => {
    if (typeof ev.data !== 'string') return;
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    switch (m.type) {
      case 'connected':
        ws.send(JSON.stringify(language ? { type: 'start_transcription', language } : { type: 'start_transcription' }));
        break;
      case 'transcription_started':
      case 'transcription_already_started':
        onStatus(t('sp.listening'));
        break;
      case 'transcription':
      case 'final': {
        const text = m.fullText ?? `${m.committedText || ''}${m.liveText || ''}`;
        lastText = text || lastText;
        onText(lastText, { final: m.type === 'final', committed: m.committedText, live: m.liveText });
        if (m.type === 'final') onStatus(t('sp.transcribed'));
        break;
      }
      case 'transcription_stopped':
        if (m.fullText) { lastText = m.fullText; onText(lastText, { final: true }); }
        finalResolve();
        break;
      case 'error':
        onError(m.message || t('sp.error'));
        break;
      default:
        break;
    }
  });
  ws.addEventListener('close', (ev) => {
    finalResolve();
    release();
    if (ev.code === 1008) onError(t('sp.refused'));
    else if (!opened) onError(t('sp.cannotConnect'));
  });
  ws.addEventListener('error', () => { /* close follows with the reason */ });

  await new Promise((resolve, reject) => {
    ws.addEventListener('open', () => { opened = true; resolve(); }, { once: true });
    ws.addEventListener('close', () => reject(new Error(t('sp.cannotConnect'))), { once: true });
  }).catch((e) => { release(); throw e; });

  ctx = new AudioContext();
  await ctx.audioWorklet.addModule('/assets/js/pcm-worklet.js');
  if (released) return { async stop() { return lastText; } };
  source = ctx.createMediaStreamSource(stream);
  // The level meter: the RMS of the last few milliseconds, scaled so that
  // speech at a normal distance fills most of the bar.
  analyser = ctx.createAnalyser();
  analyser.fftSize = 1024;
  source.connect(analyser);
  const samples = new Float32Array(analyser.fftSize);
  meter = setInterval(() => {
    analyser.getFloatTimeDomainData(samples);
    let sum = 0;
    for (const v of samples) sum += v * v;
    onLevel(Math.min(1, Math.sqrt(sum / samples.length) * 4));
  }, 100);
  node = new AudioWorkletNode(ctx, 'pcm-capture');
  node.port.onmessage = (ev) => { if (ws.readyState === WebSocket.OPEN) ws.send(ev.data); };
  source.connect(node);
  // The worklet must be pulled by the graph; its output is silent.
  node.connect(ctx.destination);
  if (ctx.state === 'suspended') await ctx.resume();

  return {
    async stop() {
      release();
      if (ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify({ type: 'stop_transcription' }));
        await Promise.race([finalSeen, new Promise((r) => setTimeout(r, 5000))]);
        ws.close(1000, 'done');
      }
      return lastText;
    },
  };
}
