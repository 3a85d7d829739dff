// The voice answer's recognition language: with pocketsphinx (English
// only), choosing 中文 says so before recording and disables the record
// button; English still records and sends its language to the server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, screenshot, apiRegister } from './helpers.js';

const NOTICE = "This server's speech recogniser understands English only. Type your answer, or choose English.";

let server;
let browser;
let wavDir;
let skipReason = '';

function has(cmd) {
  try { execFileSync(cmd, ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
}

before(async () => {
  if (!has('espeak-ng')) { skipReason = 'espeak-ng is not installed: run scripts/browser-deps.sh'; return; }
  server = await startServer({ SPEECH_PROVIDER: 'pocketsphinx' });
  wavDir = mkdtempSync(path.join(tmpdir(), 'aimeeting-wav-'));
  const wav = path.join(wavDir, 'speech.wav');
  execFileSync('espeak-ng', ['-v', 'en-us+klatt', '-s', '150', '-w', wav, 'tell me about a project you are proud of']);
  browser = await launchBrowser({
    viewport: { width: 390, height: 844 },
    extraArgs: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`],
  });
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (wavDir && existsSync(wavDir)) rmSync(wavDir, { recursive: true, force: true });
});

test('voice answer: a language the recogniser cannot do is refused before recording', { timeout: 180000 }, async (t) => {
  if (skipReason) { t.skip(skipReason); return; }
  const { page } = browser;
  const { base } = server;
  const username = `lang${Date.now().toString(36)}`;
  const token = await apiRegister(base, username, 'secret-pass-1');
  const H = { Authorization: `Bearer ${token}` };
  const caps = await (await fetch(`${base}/api/xunzhi/v1/speech/capabilities`, { headers: H })).json();
  assert.deepEqual(caps.data, { provider: 'pocketsphinx', languages: ['en'] }, `capabilities: ${JSON.stringify(caps)}`);

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
  await page.getByRole('button', { name: 'Begin the interview' }).click();
  await page.locator('.question-text').waitFor();

  // The guess follows the question's script.
  const guesses = await page.evaluate(async () => {
    const { guessLanguage } = await import('/assets/js/speech.js');
    return [guessLanguage('请解释 Redis 的持久化机制，以及 RDB 和 AOF 的区别。'), guessLanguage('Explain how Redis persists data.'),
      guessLanguage('Tell me about 张伟 and your project.')];
  });
  assert.deepEqual(guesses, ['zh-CN', 'en', 'en']);

  const picker = page.getByLabel('Speech language');
  const voice = page.getByRole('button', { name: /Answer by voice/ });
  const notice = page.locator('.voice-notice');
  // An English question defaults to English, which pocketsphinx does.
  assert.equal(await picker.inputValue(), 'en');
  await voice.waitFor();
  assert.equal(await voice.isEnabled(), true);
  assert.equal(await notice.isVisible(), false);

  // 中文: the notice is shown and recording is disabled, before anything is recorded.
  await picker.selectOption('zh-CN');
  await notice.waitFor({ state: 'visible' });
  assert.equal((await notice.textContent()).trim(), NOTICE);
  assert.equal(await voice.isDisabled(), true);
  assert.equal(await voice.getAttribute('aria-describedby'), 'voice-notice');
  await page.locator('.question-card').scrollIntoViewIfNeeded();
  await screenshot(page, 'interview-voice-language-zh-phone', { fullPage: true });
  const noticeBox = await notice.boundingBox();
  assert.ok(noticeBox && noticeBox.x >= 0 && noticeBox.x + noticeBox.width <= 390, `the notice fits the phone width: ${JSON.stringify(noticeBox)}`);

  // English: the notice goes, the button records, and the socket is told the language.
  const sent = [];
  page.on('websocket', (ws) => ws.on('framesent', (f) => { if (typeof f.payload === 'string') sent.push(f.payload); }));
  await picker.selectOption('en');
  assert.equal(await notice.isVisible(), false);
  assert.equal(await voice.isEnabled(), true);
  await voice.click();
  await page.getByRole('button', { name: /Stop recording/ }).waitFor({ timeout: 15000 });
  assert.equal(await picker.isDisabled(), true, 'the language cannot change while recording');
  const start = sent.map((s) => JSON.parse(s)).find((m) => m.type === 'start_transcription');
  assert.deepEqual(start, { type: 'start_transcription', language: 'en' });
  await page.waitForFunction(() => document.querySelector('textarea[name="answerContent"]').value.trim().length > 0, null, { timeout: 60000 });
  await page.getByRole('button', { name: /Stop recording/ }).click();
  await page.getByText(/check and edit the text/).waitFor({ timeout: 20000 });
  t.diagnostic(`English transcript: ${await page.getByLabel('Your answer').inputValue()}`);
  assert.equal(await picker.isEnabled(), true);
  assert.deepEqual(browser.errors.filter((e) => !/favicon/.test(e)), []);
});

test('voice answer: a Chinese question on an English-only recogniser warns only once the microphone is pressed', { timeout: 180000 }, async (t) => {
  if (skipReason) { t.skip(skipReason); return; }
  const { page } = browser;
  const { base } = server;
  const username = `langzh${Date.now().toString(36)}`;
  const token = await apiRegister(base, username, 'secret-pass-1');
  const H = { Authorization: `Bearer ${token}` };
  const me = (await (await fetch(`${base}/api/xunzhi/v1/users/me`, { headers: H })).json()).data;
  const sid = (await (await fetch(`${base}/api/xunzhi/v1/interview/sessions`, { method: 'POST', headers: H })).json()).data.sessionId;
  const fd = new FormData();
  fd.append('resumePdf', new Blob(['张伟，后端工程师，五年经验。熟悉 Go、MySQL、Redis 和 Kafka，负责订单系统的设计、开发与上线，编写测试和运维手册，并指导两名新同事。主导过数据库分库分表和缓存一致性改造，把接口延迟降低了一半。参与过支付对账平台的建设，设计了幂等的消息消费与补偿任务，保证每日千万级订单的最终一致。熟悉 Linux 性能分析，定位过多次线上慢查询和内存泄漏问题，并推动团队建立了代码评审与压测规范。\n'], { type: 'text/plain' }), 'resume.txt');
  fd.append('language', 'zh-CN');
  const up = await fetch(`${base}/api/xunzhi/v1/interview/sessions/${sid}/interview-questions`, { method: 'POST', headers: H, body: fd });
  assert.equal(up.status, 200, await up.text());
  await page.goto(`${base}/#/login`);
  await page.evaluate(([tok, user]) => {
    localStorage.setItem('aimeeting.token', tok);
    localStorage.setItem('aimeeting.user', JSON.stringify(user));
  }, [token, { id: me.id, username: me.username, isAdmin: me.isAdmin }]);
  await page.goto(`${base}/#/interview/s/${sid}`);
  await page.getByRole('button', { name: 'Begin the interview' }).click();
  await page.locator('.question-text').waitFor();
  assert.match(await page.locator('.question-text').textContent(), /[\u4e00-\u9fff]/, 'a Chinese question');

  const picker = page.getByLabel('Speech language');
  const voice = page.getByRole('button', { name: /Answer by voice/ });
  const notice = page.locator('.voice-notice');
  assert.equal(await picker.inputValue(), 'zh-CN', 'the language is guessed from the question');
  // The candidate who types is not warned about voice.
  await page.evaluate(async () => { const { speechCapabilities } = await import('/assets/js/speech.js'); await speechCapabilities(); });
  assert.equal(await notice.isVisible(), false, 'no warning on the question');
  assert.equal(await voice.isEnabled(), true);
  // Pressing the microphone says why it cannot record, and records nothing.
  let sockets = 0;
  page.on('websocket', () => { sockets += 1; });
  await voice.click();
  await notice.waitFor({ state: 'visible' });
  assert.equal((await notice.textContent()).trim(), NOTICE);
  assert.equal(await voice.isDisabled(), true);
  assert.equal(sockets, 0, 'nothing is recorded');
  // English records again.
  await picker.selectOption('en');
  assert.equal(await notice.isVisible(), false);
  assert.equal(await voice.isEnabled(), true);
  assert.deepEqual(browser.errors.filter((e) => !/favicon/.test(e)), []);
});
