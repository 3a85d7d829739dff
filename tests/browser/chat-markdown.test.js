// Chat against a fake streaming OpenAI-compatible model (issue 19): answers
// render as Markdown (table, code with a copy button), a <script>/onerror
// payload in an answer stays inert, every answer can be copied, the last one
// regenerated; a stalled stream shows the stall notice; a stopped answer
// reads as stopped after a reload; the composer is in view on a phone.
// Admin: "Test connection" (ok and failing), the save warning, delete asks
// first. No uncaught page error anywhere (pageerror fails the test).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer, launchBrowser, screenshot, screenshotDir, registerAndLogin } from './helpers.js';
import { MARKDOWN, startModel } from './fake-model.js';
import { domProblems } from './i18n-check.js';

let server;
let browser;
let model;
let modelURL;
const pageErrors = [];

before(async () => {
  model = await startModel();
  modelURL = `http://127.0.0.1:${model.address().port}/v1`;
  server = await startServer({
    AI_PROVIDER: 'openai', AI_OPENAI_BASE_URL: modelURL, AI_OPENAI_API_KEY: 'sk-fake-key', AI_OPENAI_MODEL: 'fake-model',
    CHAT_STALL_NOTICE: '1s', CHAT_STREAM_IDLE_TIMEOUT: '30s',
  });
  browser = await launchBrowser();
  browser.page.on('pageerror', (e) => pageErrors.push(String(e)));
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
});

after(async () => {
  const refused = browser ? browser.errors.filter((e) => /Content Security Policy|Refused to/.test(e)) : [];
  if (browser) {
    if (browser.errors.length) console.log('console errors:', browser.errors);
    await browser.close();
  }
  if (server) await server.stop();
  if (model) model.close();
  assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  assert.deepEqual(refused, [], 'nothing the page does is refused by its Content-Security-Policy');
});

/** Sends a message in the chat page and waits for the answer to finish. */
async function ask(page, text) {
  await page.getByLabel('Message', { exact: true }).fill(text);
  const n = await page.locator('.msg-ai').count();
  await page.getByLabel('Message', { exact: true }).press('Control+Enter');
  await page.locator('.msg-ai').nth(n).waitFor();
  await page.locator('.msg-ai').nth(n).and(page.locator(':not(.streaming)')).waitFor({ timeout: 30000 });
  return page.locator('.msg-ai').nth(n);
}

test('Markdown answers: table and code rendered, code and answer copy', { timeout: 120000 }, async () => {
  const { page } = browser;
  await registerAndLogin(page, server.base, 'chatadmin');
  await page.getByRole('link', { name: 'Chat' }).click();
  await page.getByLabel('Model').waitFor();
  const ai = await ask(page, 'Compare Go and Python in markdown please');
  const content = ai.locator('.msg-content');
  assert.equal(await content.locator('table tr').count(), 3, 'a header row and two rows');
  assert.equal(await content.locator('table th').first().textContent(), 'Language');
  assert.equal(await content.locator('strong').textContent(), 'short comparison');
  assert.match(await content.locator('.code-block pre code').textContent(), /fmt\.Println\("hello, index"\)/);
  assert.equal(await content.locator('.code-lang').textContent(), 'go');
  assert.equal(await content.locator('p code').textContent(), 'go vet');
  assert.doesNotMatch(await content.textContent(), /\*\*|\| ---|```/, 'no raw Markdown left');

  await content.getByRole('button', { name: 'Copy code' }).click();
  await content.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal((await page.evaluate(() => navigator.clipboard.readText())).trim(), 'fmt.Println("hello, index")');
  await ai.locator('.msg-actions').getByRole('button', { name: 'Copy', exact: true }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), MARKDOWN.join(''), 'the answer is copied as written (Markdown)');
  await ai.locator('.msg-actions').getByRole('button', { name: 'Copied' }).waitFor();
  await page.waitForTimeout(1900);
  await screenshot(page, 'chat');
  await page.locator('#lang-switch [data-lang="zh-CN"]').click();
  await page.locator('.msg-ai .msg-content table').waitFor();
  await page.getByRole('button', { name: '重新生成' }).waitFor();
  // A conversation in Chinese for the Chinese screenshot.
  await page.getByRole('button', { name: '新建会话' }).click();
  await page.locator('.composer textarea').fill('请用表格比较 Go 和 Python');
  await page.locator('.composer textarea').press('Control+Enter');
  await page.locator('.msg-ai:not(.streaming) .msg-content table').waitFor({ timeout: 30000 });
  assert.deepEqual(await domProblems(page, 'zh-CN'), [], 'the chat page in Chinese');
  await screenshot(page, 'zh-chat');
  await page.locator('.conv-list button.conv', { hasText: 'Compare Go' }).click();
  await page.locator('.msg-ai .msg-content', { hasText: 'short comparison' }).waitFor();
  await page.locator('#lang-switch [data-lang="en"]').click();
  await page.getByRole('button', { name: 'Regenerate' }).waitFor();
});

test('a <script>/onerror payload in an answer is inert', { timeout: 60000 }, async () => {
  const { page } = browser;
  const ai = await ask(page, 'Show me an XSS payload');
  const content = ai.locator('.msg-content');
  assert.match(await content.textContent(), /<script>window\.__pwned = "script"<\/script>/, 'the tag is shown as text');
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'nothing ran');
  const found = await page.evaluate(() => {
    const m = document.querySelector('.messages');
    return {
      script: m.querySelectorAll('script').length,
      img: m.querySelectorAll('img').length,
      on: [...m.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      js: [...m.querySelectorAll('a')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href') || '')).length,
    };
  });
  assert.deepEqual(found, { script: 0, img: 0, on: 0, js: 0 });
  // Clicking what looks like links runs nothing either.
  for (const a of await content.locator('a').all()) await a.click({ modifiers: ['Control'] }).catch(() => {});
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
});

test('regenerate replaces the last answer, also after a reload', { timeout: 60000 }, async () => {
  const { page } = browser;
  const ai = await ask(page, 'Give me a number');
  const first = await ai.locator('.msg-content').textContent();
  assert.match(first, /^Answer number \d+\.$/);
  assert.equal(await page.getByRole('button', { name: 'Regenerate' }).count(), 1, 'only the last answer offers it');
  await ai.getByRole('button', { name: 'Regenerate' }).click();
  await page.waitForFunction((old) => {
    const el = document.querySelector('.msg-ai:last-of-type');
    return el && !el.classList.contains('streaming') && el.querySelector('.msg-content').textContent !== old && el.querySelector('.msg-content').textContent;
  }, first);
  const second = await page.locator('.msg-ai').last().locator('.msg-content').textContent();
  assert.match(second, /^Answer number \d+\.$/);
  assert.notEqual(second, first);
  const count = await page.locator('.msg-ai').count();
  await page.reload();
  await page.locator('.msg-ai').nth(count - 1).waitFor();
  assert.equal(await page.locator('.msg-ai').count(), count, 'the old answer is replaced, not added');
  assert.equal(await page.locator('.msg-ai').last().locator('.msg-content').textContent(), second);
});

test('a stalled stream shows the notice; a stopped answer reads as stopped after reload', { timeout: 90000 }, async () => {
  const { page } = browser;
  await page.getByLabel('Message', { exact: true }).fill('Please stall for a moment');
  await page.getByRole('button', { name: 'Send' }).click();
  const stall = page.locator('.msg-ai.streaming .msg-stall');
  await stall.waitFor({ state: 'visible', timeout: 10000 });
  assert.match(await stall.textContent(), /Still waiting for the model — nothing new for \d+ s/);
  await page.locator('.msg-ai:last-of-type:not(.streaming)').waitFor({ timeout: 20000 });
  assert.equal(await page.locator('.msg-ai').last().locator('.msg-stall').isVisible(), false, 'the notice goes once the answer moves on');
  assert.match(await page.locator('.msg-ai').last().locator('.msg-content').textContent(), /here is the answer after a pause/);

  await page.getByLabel('Message', { exact: true }).fill('Now hang forever');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.msg-ai.streaming .msg-content', { hasText: 'The first words' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).click();
  const marker = page.locator('.msg-ai').last().locator('.msg-stopped');
  await marker.waitFor();
  assert.equal(await marker.textContent(), 'You stopped this answer; what arrived is kept.');
  await page.waitForTimeout(500); // the server saves the partial answer
  await page.reload();
  await page.locator('.msg-ai .msg-content', { hasText: 'The first words' }).waitFor();
  const stoppedMsg = page.locator('.msg-ai').last();
  assert.equal(await stoppedMsg.locator('.msg-stopped').textContent(), 'You stopped this answer; what arrived is kept.');
  assert.doesNotMatch(await stoppedMsg.textContent(), /client disconnected|partial answer/);
  assert.equal(await stoppedMsg.locator('.msg-error').isVisible(), false, 'not shown as an error');
  await page.locator('#lang-switch [data-lang="zh-CN"]').click();
  await page.locator('.msg-stopped', { hasText: '你停止了这个回答' }).waitFor();
  assert.deepEqual(await domProblems(page, 'zh-CN'), [], 'the stopped marker in Chinese');
  await page.locator('#lang-switch [data-lang="en"]').click();
  await page.locator('.msg-stopped', { hasText: 'You stopped' }).waitFor();
});

test('on a phone the composer is in the first screen', { timeout: 60000 }, async (t) => {
  const { page } = browser;
  await page.setViewportSize({ width: 390, height: 844 });
  t.after(() => page.setViewportSize({ width: 1280, height: 860 }));
  await page.reload();
  await page.locator('.msg-ai').first().waitFor();
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const loc of [page.getByLabel('Message', { exact: true }), page.getByRole('button', { name: 'Send' })]) {
    const box = await loc.boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= 844, `in view without scrolling: ${JSON.stringify(box)}`);
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `no horizontal scrolling (${overflow}px)`);
  // The folded list opens and lists the conversation.
  await page.locator('.conv-box > summary').click();
  await page.locator('.conv-list button.conv').first().waitFor();
  await screenshot(page, 'chat-phone');
});

test('admin: test connection ok and failing, save warning, delete asks first', { timeout: 120000 }, async () => {
  const { page } = browser;
  await page.getByRole('link', { name: 'Admin' }).click();
  await page.getByRole('heading', { name: 'AI providers' }).waitFor();

  // A working provider (the fake model), tested from the form before saving, then saved.
  await page.getByLabel('Name', { exact: true }).first().fill('Fake model');
  await page.getByLabel('Type').selectOption('openai');
  await page.getByLabel('API URL').fill(modelURL);
  await page.getByLabel('API key').fill('sk-fake-key');
  await page.getByLabel('Model', { exact: true }).fill('fake-model');
  const form = page.locator('form.admin-form').first();
  await form.getByRole('button', { name: 'Test connection' }).click();
  await form.locator('.test-result.ok').waitFor({ timeout: 15000 });
  assert.match(await form.locator('.test-result').textContent(), /^Connected — answered in [\d,]+ ms\.$/);
  await page.getByRole('button', { name: 'Save provider' }).click();
  const row = page.locator('tr', { hasText: 'Fake model' });
  await row.waitFor();
  await row.getByRole('button', { name: 'Test connection' }).click();
  await row.locator('.test-result.ok').waitFor({ timeout: 15000 });

  // An unreachable one: the test says why; saving it warns.
  await page.getByLabel('Name', { exact: true }).first().fill('Unreachable');
  await page.getByLabel('API URL').fill('http://127.0.0.1:9/v1');
  await page.getByLabel('API key').fill('sk-nothing');
  await page.getByLabel('Model', { exact: true }).fill('none');
  await form.getByRole('button', { name: 'Test connection' }).click();
  await form.locator('.test-result.fail').waitFor({ timeout: 20000 });
  assert.match(await form.locator('.test-result').textContent(), /^No answer: \S/);
  await page.getByRole('button', { name: 'Save provider' }).click();
  const warning = page.locator('.save-warning');
  await warning.waitFor({ timeout: 20000 });
  assert.match(await warning.textContent(), /Saved, but the provider did not answer/);
  const bad = page.locator('tr', { hasText: 'Unreachable' });
  await bad.waitFor();
  await bad.getByRole('button', { name: 'Test connection' }).click();
  await bad.locator('.test-result.fail').waitFor({ timeout: 20000 });

  // Delete asks first: Cancel keeps it, Delete removes it.
  await bad.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('alertdialog');
  await dialog.waitFor();
  assert.match(await dialog.textContent(), /Delete the provider “Unreachable”\?/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await bad.count(), 1, 'still there after Cancel');
  await bad.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await bad.waitFor({ state: 'detached' });
  await row.getByRole('button', { name: 'Test connection' }).click();
  await row.locator('.test-result.ok').waitFor({ timeout: 15000 });
  await page.evaluate(() => { document.getElementById('toasts').replaceChildren(); window.scrollTo(0, 0); });
  const box = await page.locator('section.card').first().evaluate((el) => { const r = el.getBoundingClientRect(); return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height }; });
  await page.screenshot({ path: path.join(screenshotDir, 'admin-providers.png'), fullPage: true, clip: { ...box, y: box.y - 8, height: box.height + 16 } });

  // On a phone the table scrolls sideways inside its box, the page does not.
  await page.setViewportSize({ width: 390, height: 844 });
  const sizes = await page.evaluate(() => {
    const w = document.querySelector('.table-wrap');
    return { inner: w.scrollWidth, box: w.clientWidth, overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth, scroll: getComputedStyle(w).overflowX };
  });
  assert.ok(sizes.inner > sizes.box && sizes.scroll === 'auto', `the table scrolls in its box: ${JSON.stringify(sizes)}`);
  assert.ok(sizes.overflow <= 1, `the page does not scroll sideways: ${JSON.stringify(sizes)}`);
  await page.setViewportSize({ width: 1280, height: 860 });
});

test('shell: errors as sentences with the request id; a page that cannot load offers a reload; plurals', { timeout: 60000 }, async (t) => {
  const { page } = browser;
  t.after(() => page.unrouteAll({ behavior: 'ignoreErrors' }));
  // A 409 reads as the server's sentence, without "Conflict:".
  await page.route('**/api/xunzhi/v1/ai/conversations?*', (route) => route.fulfill({
    status: 409, contentType: 'application/json',
    body: JSON.stringify({ code: 'A000409', message: 'This conversation was changed in another tab.', requestId: 'rid-409', data: null }),
  }));
  await page.goto(`${server.base}/#/chat`);
  const alert = page.locator('.alert-error').first();
  await alert.waitFor();
  assert.equal(await alert.textContent(), 'This conversation was changed in another tab.');
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  // A server failure: a sentence and the request id to give support.
  await page.route('**/api/xunzhi/v1/ai/conversations?*', (route) => route.fulfill({
    status: 500, contentType: 'application/json',
    body: JSON.stringify({ code: 'B000001', message: '', requestId: 'rid-500', data: null }),
  }));
  await page.reload();
  await alert.waitFor();
  assert.equal(await alert.textContent(), 'Something went wrong on the server. Try again in a moment.Reference for support: rid-500');
  assert.equal(await alert.locator('code').textContent(), 'rid-500');
  await page.unrouteAll({ behavior: 'ignoreErrors' });

  // A view whose code cannot be fetched (an update, a dropped connection): a sentence and Reload.
  await page.route('**/assets/js/tts.js', (route) => route.abort());
  await page.goto(`${server.base}/#/tts`);
  const failed = page.locator('.alert-error');
  await failed.waitFor();
  assert.equal(await failed.locator('button').textContent(), 'Reload page');
  assert.match(await failed.textContent(), /^Part of the page could not load — the app may have been updated\. Reload the page to continue\./);
  assert.doesNotMatch(await failed.textContent(), /dynamically imported module|TypeError/);
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await failed.locator('button').click();
  await page.getByRole('heading', { name: 'Speech synthesis' }).waitFor();

  // "1 message", "2 messages"; Chinese has one form.
  const plurals = await page.evaluate(async () => {
    const i18n = await import('/assets/js/i18n.js');
    await import('/assets/js/i18n/chat.js');
    const out = [i18n.t('chat.meta', { n: 1, time: 'today' }), i18n.t('chat.meta', { n: 2, time: 'today' })];
    i18n.setLocale('zh-CN', { remember: false });
    out.push(i18n.t('chat.meta', { n: 1, time: '今天' }));
    i18n.setLocale('en', { remember: false });
    return out;
  });
  assert.deepEqual(plurals, ['1 message · today', '2 messages · today', '1 条消息 · 今天']);
});
