// Speech synthesis: a task's progress bar, fed by the task's SSE events,
// reaches 100 %, and the audio (fetched with the token into a blob: URL)
// can play.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startServer, launchBrowser, screenshot, registerAndLogin } from './helpers.js';

let server;
let browser;
let ttsRoutes = false;
let espeak = false;

before(async () => {
  try { execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' }); espeak = true; } catch { espeak = false; }
  // One segment at a time: the reload test's task runs long enough to reload in its middle.
  server = await startServer({ TTS_MAX_CONCURRENCY: '1' });
  const r = await fetch(`${server.base}/api/xunzhi/v1/xunfei/tts/tasks`);
  ttsRoutes = r.status !== 404;
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const TEXT = [
  'Good morning, and welcome to your mock interview practice.',
  'Today we will talk about databases, caching and distributed systems.',
  'Take your time to think before you answer each question.',
  'Explain your reasoning clearly, and give concrete examples from your own projects.',
  'At the end you will receive a report with scores and suggestions.',
].join(' ');
const LONG = [TEXT, TEXT, TEXT].join(' ');

test('a TTS task shows progress to 100 % and its audio can play', { timeout: 180000 }, async (t) => {
  if (!ttsRoutes) { t.skip('the TTS API (/api/xunzhi/v1/xunfei/tts) is not mounted in this build yet'); return; }
  if (!espeak) { t.skip('espeak-ng (the default TTS provider) is not installed: run scripts/browser-deps.sh'); return; }
  const { page } = browser;
  await registerAndLogin(page, server.base);
  await page.getByRole('link', { name: 'Speech synthesis' }).click();
  await page.getByRole('heading', { name: 'Speech synthesis' }).waitFor();

  // Record every progress value the bar shows.
  await page.evaluate(() => {
    window.__progress = [];
    const bar = document.getElementById('tts-progress');
    new MutationObserver(() => window.__progress.push(bar.value)).observe(bar, { attributes: true });
    const desc = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, 'value');
    Object.defineProperty(bar, 'value', {
      get() { return desc.get.call(this); },
      set(v) { desc.set.call(this, v); window.__progress.push(Number(v)); },
    });
  });

  await page.getByLabel('Text', { exact: true }).fill(LONG);
  await page.getByLabel('Voice').selectOption('en-us');
  await page.getByRole('button', { name: 'Synthesize' }).click();
  await page.waitForFunction(() => document.getElementById('tts-progress').value === 100, null, { timeout: 120000 });
  assert.match(await page.locator('#tts-progress-text').textContent(), /^100 % · done/);

  const audio = page.locator('#tts-audio');
  await audio.waitFor({ state: 'visible', timeout: 30000 });
  const info = await page.evaluate(() => new Promise((resolve, reject) => {
    const a = document.getElementById('tts-audio');
    const done = () => resolve({ duration: a.duration, src: a.src, readyState: a.readyState });
    if (a.readyState >= 3) done();
    else {
      a.addEventListener('canplay', done, { once: true });
      a.addEventListener('error', () => reject(new Error(`audio error ${a.error && a.error.code}`)), { once: true });
    }
  }));
  assert.ok(info.src.startsWith('blob:'), 'audio comes from a blob: URL fetched with the token');
  assert.ok(info.duration > 1, `audio has a duration, got ${info.duration}`);
  // It really plays (muted so that no sound device is needed).
  const played = await page.evaluate(async () => {
    const a = document.getElementById('tts-audio');
    a.muted = true;
    await a.play();
    await new Promise((r) => setTimeout(r, 600));
    const t = a.currentTime;
    a.pause();
    return t;
  });
  assert.ok(played > 0, `currentTime advanced to ${played}`);

  const dl = page.getByRole('link', { name: 'Download audio' });
  assert.match(await dl.getAttribute('href'), /^blob:/);
  assert.match(await dl.getAttribute('download'), /\.wav$/);

  const seen = await page.evaluate(() => window.__progress);
  assert.equal(seen[seen.length - 1], 100);
  await page.evaluate(() => document.getElementById('tts-audio').currentTime = 0);
  await page.locator('.records li').first().waitFor();
  await screenshot(page, 'tts', { fullPage: true });
  t.diagnostic(`progress values seen: ${JSON.stringify([...new Set(seen)])}`);

  // On a phone the bar takes the card's full width, its text below it.
  const desktop = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const [bar, text, wrap] = await Promise.all(['#tts-progress', '#tts-progress-text', '.progress-wrap']
      .map((sel) => page.locator(sel).boundingBox()));
    assert.ok(Math.abs(bar.width - wrap.width) < 2, `the bar is as wide as its row: ${bar.width} of ${wrap.width}`);
    assert.ok(text.y >= bar.y + bar.height - 1, `the text is below the bar: ${JSON.stringify({ bar, text })}`);
    await screenshot(page, 'tts-phone', { fullPage: true });
  } finally {
    await page.setViewportSize(desktop);
  }
});

test('a running TTS task is followed again after a reload', { timeout: 240000 }, async (t) => {
  if (!ttsRoutes) { t.skip('the TTS API is not mounted in this build yet'); return; }
  if (!espeak) { t.skip('espeak-ng (the default TTS provider) is not installed: run scripts/browser-deps.sh'); return; }
  const { page } = browser;
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${server.base}/#/tts`);
  await page.getByRole('heading', { name: 'Speech synthesis' }).waitFor();
  await page.getByLabel('Text', { exact: true }).fill(Array(50).fill(TEXT).join(' '));
  await page.getByLabel('Voice').selectOption('en-us');
  await page.getByRole('button', { name: 'Synthesize' }).click();
  // The task is running and remembered by this browser: reload in the middle.
  await page.waitForFunction(() => Object.keys(localStorage).some((k) => k.startsWith('aimeeting.tts.task.')));
  const before = await page.evaluate(() => document.getElementById('tts-progress').value);
  assert.ok(before < 100, `reloaded while running (${before} %)`);
  await page.reload();
  await page.locator('.alert-info', { hasText: 'Following the synthesis you started before the page was reloaded.' }).waitFor();
  assert.equal(await page.locator('#tts-progress').isVisible(), true, 'the progress card is back');
  await screenshot(page, 'tts-resumed', { fullPage: true });
  await page.waitForFunction(() => document.getElementById('tts-progress').value === 100, null, { timeout: 200000 });
  await page.locator('#tts-audio').waitFor({ state: 'visible', timeout: 30000 });
  assert.equal(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('aimeeting.tts.task.')).length), 0, 'forgotten once done');
  // Another reload: nothing left to follow.
  await page.reload();
  await page.getByRole('heading', { name: 'Speech synthesis' }).waitFor();
  await page.locator('.records li').first().waitFor();
  assert.equal(await page.locator('.alert-info').count(), 0);
  assert.deepEqual(pageErrors, []);
});
