// Chat: the offline model's streamed answer is rendered chunk by chunk
// (several different partial texts seen in the page while it streams), the
// conversation is listed and its history reloads.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, registerAndLogin } from './helpers.js';

let server;
let browser;
let chatRoutes = false;

before(async () => {
  server = await startServer();
  // Is the chat API mounted in this build? (A 404 JSON envelope names the route.)
  const r = await fetch(`${server.base}/api/xunzhi/v1/ai/conversations`);
  chatRoutes = r.status !== 404;
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

test('chat streams the answer incrementally and keeps the history', { timeout: 120000 }, async (t) => {
  if (!chatRoutes) {
    t.skip('the chat API (/api/xunzhi/v1/ai) is not mounted in this build yet');
    return;
  }
  const { page } = browser;
  await registerAndLogin(page, server.base);
  await page.getByRole('link', { name: 'Chat' }).click();
  await page.waitForURL(/#\/chat/);
  const picker = page.getByLabel('Model');
  await picker.waitFor();
  assert.ok((await picker.locator('option').count()) >= 1, 'model picker has options');

  // Record every text the AI bubble shows while the answer streams in.
  await page.evaluate(() => {
    window.__partials = [];
    const seen = (el) => {
      const t = el.textContent;
      const last = window.__partials[window.__partials.length - 1];
      if (t && (!last || last.text !== t)) window.__partials.push({ text: t, at: performance.now() });
    };
    new MutationObserver(() => {
      const el = document.querySelector('.msg-ai:last-of-type .msg-content');
      if (el) seen(el);
    }).observe(document.querySelector('.messages'), { subtree: true, childList: true, characterData: true });
  });

  const message = 'Please explain what a database index is and why it makes lookups faster than a full scan of the table';
  await page.getByLabel('Message', { exact: true }).fill(message);
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.msg-ai:not(.streaming)').waitFor({ timeout: 30000 });
  const final = await page.locator('.msg-ai .msg-content').last().textContent();
  assert.match(final, /offline/i);
  assert.match(final, /database index/);
  const partials = await page.evaluate(() => window.__partials);
  const distinct = [...new Set(partials.map((p) => p.text))];
  assert.ok(distinct.length >= 3, `the answer grew in several steps, saw ${distinct.length}: ${JSON.stringify(distinct.slice(0, 4))}`);
  for (let i = 1; i < distinct.length; i++) {
    assert.ok(distinct[i].startsWith(distinct[i - 1]) && distinct[i].length > distinct[i - 1].length, 'each partial text extends the previous one');
  }
  assert.equal(distinct[distinct.length - 1], final);
  assert.ok(partials[0].text.length < final.length, 'the first rendered text is a prefix, not the whole answer');
  // The offline model is labelled on the answer.
  await page.locator('.msg-ai .badge-offline').waitFor();

  // The conversation is listed; reloading shows the history.
  await page.locator('.conv-list button.conv').first().waitFor();
  await page.reload();
  await page.locator('.msg-user .msg-content').first().waitFor();
  assert.equal(await page.locator('.msg-user .msg-content').first().textContent(), message);
  assert.equal(await page.locator('.msg-ai .msg-content').last().textContent(), final);
  // docs/screenshots/chat.png: chat-markdown.test.js (an answer in Markdown).
});

test('layout works on a phone-sized screen', { timeout: 60000 }, async (t) => {
  if (!chatRoutes) {
    t.skip('the chat API is not mounted in this build yet');
    return;
  }
  const { page } = browser;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  const toggle = page.getByRole('button', { name: 'Menu' });
  await toggle.waitFor();
  assert.equal(await page.locator('#nav').isVisible(), false, 'navigation collapsed');
  await toggle.click();
  await page.getByRole('link', { name: 'Speech synthesis' }).waitFor();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `no horizontal scrolling (overflow ${overflow}px)`);
  // docs/screenshots/chat-phone.png: chat-markdown.test.js.
  await page.setViewportSize({ width: 1280, height: 860 });
});
