// Live transcription in the interview: chromium's fake microphone plays an
// espeak-ng WAV; the page captures it (AudioWorklet → 16 kHz s16le), streams
// it over the WebSocket and shows the transcript in the editable answer box.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, screenshot, apiRegister } from './helpers.js';

const SENTENCE = 'tell me about a project you are proud of. the quick brown fox jumps over the lazy dog.';
const WORDS = ['tell', 'about', 'project', 'proud', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog'];

let server;
let browser;
let wavDir;
let skipReason = '';

function has(cmd) {
  try { execFileSync(cmd, ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
}

before(async () => {
  if (!has('espeak-ng')) { skipReason = 'espeak-ng is not installed: run scripts/browser-deps.sh'; return; }
  server = await startServer();
  // Is the speech socket mounted in this build? (NoRoute answers "route ... not found".)
  const probe = await fetch(`${server.base}/api/xunzhi/v1/xunfei/audio-to-text/probe`);
  if (probe.status === 404) {
    const env = await probe.json().catch(() => ({}));
    if (/^route /.test(env.message || '')) { skipReason = 'the speech WebSocket (/api/xunzhi/v1/xunfei/audio-to-text) is not mounted in this build yet'; return; }
  }
  wavDir = mkdtempSync(path.join(tmpdir(), 'aimeeting-wav-'));
  const raw = path.join(wavDir, 'speech-raw.wav');
  const wav = path.join(wavDir, 'speech.wav');
  execFileSync('espeak-ng', ['-v', 'en-us+klatt', '-s', '150', '-w', raw, SENTENCE]);
  // Silence around the speech so that voice activity detection closes the utterance
  // (chromium loops the file).
  if (has('sox')) execFileSync('sox', [raw, wav, 'pad', '0.5', '1.5']);
  else execFileSync('cp', [raw, wav]);
  browser = await launchBrowser({
    extraArgs: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`],
  });
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (wavDir && existsSync(wavDir)) rmSync(wavDir, { recursive: true, force: true });
});

test('voice answer: live transcription from the microphone shows the words', { timeout: 180000 }, async (t) => {
  if (skipReason) { t.skip(skipReason); return; }
  const { page } = browser;
  const { base } = server;
  // Set up an interview through the API, then open it in the page as that user.
  const username = `voice${Date.now().toString(36)}`;
  const token = await apiRegister(base, username, 'secret-pass-1');
  const H = { Authorization: `Bearer ${token}` };
  const me = (await (await fetch(`${base}/api/xunzhi/v1/users/me`, { headers: H })).json()).data;
  const sid = (await (await fetch(`${base}/api/xunzhi/v1/interview/sessions`, { method: 'POST', headers: H })).json()).data.sessionId;
  const fd = new FormData();
  fd.append('resumePdf', new Blob(['Jane Doe, backend engineer. Go, MySQL, Redis, Kafka.\nFive years in a product team: owned features from design to release, wrote tests and runbooks, and mentored two junior engineers (doctext.min-chars is 200).\n'], { type: 'text/plain' }), 'resume.txt');
  const up = await fetch(`${base}/api/xunzhi/v1/interview/sessions/${sid}/interview-questions`, { method: 'POST', headers: H, body: fd });
  assert.equal(up.status, 200);
  await page.goto(`${base}/#/login`);
  await page.evaluate(([tok, user]) => {
    localStorage.setItem('aimeeting.token', tok);
    localStorage.setItem('aimeeting.user', JSON.stringify(user));
  }, [token, { id: me.id, username: me.username, isAdmin: me.isAdmin }]);
  await page.goto(`${base}/#/interview/s/${sid}`);
  // A READY session opens on the ready screen; Begin starts the interview.
  await page.getByRole('button', { name: 'Begin the interview' }).click();
  await page.locator('.question-text').waitFor();

  const answer = page.getByLabel('Your answer');
  await answer.fill('My answer:');
  await page.getByRole('button', { name: /Answer by voice/ }).click();
  await page.getByRole('button', { name: /Stop recording/ }).waitFor({ timeout: 15000 });
  // The input level meter moves with the voice.
  await page.waitForFunction(() => { const m = document.querySelector('meter.voice-level'); return m && !m.hidden && m.value > 0.01; }, null, { timeout: 15000 });
  // Partial results arrive while the microphone is still on.
  await page.waitForFunction((words) => {
    const v = document.querySelector('textarea[name="answerContent"]').value.toLowerCase();
    return words.filter((w) => v.includes(w)).length >= 2;
  }, WORDS, { timeout: 60000 });
  const partial = await answer.inputValue();
  // Let it hear the whole file once (about 7 s) before stopping.
  await page.waitForFunction((words) => {
    const v = document.querySelector('textarea[name="answerContent"]').value.toLowerCase();
    return words.filter((w) => v.includes(w)).length >= 5;
  }, WORDS, { timeout: 30000 }).catch(() => {});
  await page.getByRole('button', { name: /Stop recording/ }).click();
  await page.getByText(/check and edit the text/).waitFor({ timeout: 20000 });
  const text = (await answer.inputValue()).toLowerCase();
  assert.ok(text.startsWith('my answer: '), `the typed prefix is kept: ${text}`);
  const heard = WORDS.filter((w) => text.includes(w));
  t.diagnostic(`partial: ${partial}`);
  t.diagnostic(`final: ${text} (${heard.length}/${WORDS.length} words)`);
  assert.ok(heard.length >= 3, `the transcript shows the spoken words, heard ${heard.join(', ')} in "${text}"`);

  // The transcript stays editable and can be sent as the answer.
  await answer.fill(`${await answer.inputValue()} (edited)`);
  assert.match(await answer.inputValue(), /\(edited\)$/);
  await screenshot(page, 'interview-voice', { fullPage: true });
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await page.locator('.feedback-card').waitFor({ timeout: 60000 });
  assert.ok(await page.locator('meter.voice-level').isHidden(), 'the meter is gone after recording');
  // No console errors (e.g. "Cannot close a closed AudioContext") across the recording.
  assert.deepEqual(browser.errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no page errors');
});

/** A WAV file of seconds of silence (16 kHz mono 16-bit). */
function silentWav(file, seconds) {
  const n = 16000 * seconds;
  const b = Buffer.alloc(44 + n * 2);
  b.write('RIFF', 0); b.writeUInt32LE(36 + n * 2, 4); b.write('WAVE', 8); b.write('fmt ', 12);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(16000, 24);
  b.writeUInt32LE(32000, 28); b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write('data', 36); b.writeUInt32LE(n * 2, 40);
  writeFileSync(file, b);
}

test('voice answer: silence shows "nothing recognised", not "done"', { timeout: 120000 }, async (t) => {
  if (skipReason) { t.skip(skipReason); return; }
  const silent = path.join(wavDir, 'silence.wav');
  silentWav(silent, 4);
  const quiet = await launchBrowser({
    extraArgs: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${silent}`],
  });
  try {
    const { page } = quiet;
    const { base } = server;
    const token = await apiRegister(base, `quiet${Date.now().toString(36)}`, 'secret-pass-1');
    const H = { Authorization: `Bearer ${token}` };
    const me = (await (await fetch(`${base}/api/xunzhi/v1/users/me`, { headers: H })).json()).data;
    const sid = (await (await fetch(`${base}/api/xunzhi/v1/interview/sessions`, { method: 'POST', headers: H })).json()).data.sessionId;
    const fd = new FormData();
    fd.append('resumePdf', new Blob(['Jane Doe, backend engineer. Go, MySQL, Redis, Kafka.\nFive years in a product team: owned features from design to release, wrote tests and runbooks, and mentored two junior engineers (doctext.min-chars is 200).\n'], { type: 'text/plain' }), 'resume.txt');
    assert.equal((await fetch(`${base}/api/xunzhi/v1/interview/sessions/${sid}/interview-questions`, { method: 'POST', headers: H, body: fd })).status, 200);
    await page.goto(`${base}/#/login`);
    await page.evaluate(([tok, user]) => {
      localStorage.setItem('aimeeting.token', tok);
      localStorage.setItem('aimeeting.user', JSON.stringify(user));
    }, [token, { id: me.id, username: me.username, isAdmin: me.isAdmin }]);
    await page.goto(`${base}/#/interview/s/${sid}`);
    await page.getByRole('button', { name: 'Begin the interview' }).click();
    await page.locator('.question-text').waitFor();
    await page.getByRole('combobox', { name: 'Speech language' }).selectOption('en');
    await page.getByRole('button', { name: /Answer by voice/ }).click();
    await page.getByRole('button', { name: /Stop recording/ }).waitFor({ timeout: 15000 });
    await page.waitForTimeout(3000);
    await page.getByRole('button', { name: /Stop recording/ }).click();
    await page.locator('.voice-status.voice-empty', { hasText: /^Nothing was recognised/ }).waitFor({ timeout: 20000 });
    assert.equal(await page.getByLabel('Your answer').inputValue(), '');
    assert.deepEqual(quiet.errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no page errors');
  } finally {
    await quiet.close();
  }
});
