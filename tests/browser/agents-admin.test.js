// Admin pages (provider configs with masked keys, agent configs) and the
// agents page (pick an agent, give it a file, chat). The first user of a
// fresh database is the admin; a second user does not see the admin pages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, screenshot, registerAndLogin } from './helpers.js';

let server;
let browser;
let agentRoutes = false;

before(async () => {
  server = await startServer();
  const r = await fetch(`${server.base}/api/xunzhi/v1/agent-properties`);
  agentRoutes = r.status !== 404;
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const SECRET = 'sk-browser-test-0123456789abcdef';

test('admin: provider keys are shown masked; agents can be created', { timeout: 90000 }, async (t) => {
  if (!agentRoutes) { t.skip('the agent API is not mounted in this build yet'); return; }
  const { page } = browser;
  await registerAndLogin(page, server.base, 'admin1');
  await page.getByRole('link', { name: 'Admin' }).click();
  await page.getByRole('heading', { name: 'AI providers' }).waitFor();

  await page.getByLabel('Name', { exact: true }).first().fill('Test OpenAI');
  await page.getByLabel('Type').selectOption('openai');
  await page.getByLabel('API URL').fill('http://127.0.0.1:9/v1');
  await page.getByLabel('API key').fill(SECRET);
  await page.getByLabel('Model', { exact: true }).fill('gpt-test');
  await page.locator('label.check', { hasText: 'Enabled' }).locator('input').uncheck();
  await page.getByRole('button', { name: 'Save provider' }).click();
  const row = page.locator('tr', { hasText: 'Test OpenAI' });
  await row.waitFor();
  const rowText = await row.textContent();
  assert.ok(!rowText.includes(SECRET), 'the key is never shown in full');
  assert.doesNotMatch(await page.content(), new RegExp(SECRET));

  await page.getByLabel('Name', { exact: true }).nth(1).fill('Go reviewer');
  await page.getByLabel('Description').fill('Reviews Go code and explains idioms.');
  await page.getByLabel('System prompt').nth(1).fill('You are a senior Go reviewer.');
  await page.locator('fieldset.tags label', { hasText: 'backend' }).locator('input').check();
  await page.getByRole('button', { name: 'Save agent' }).click();
  await page.locator('tr', { hasText: 'Go reviewer' }).waitFor();
  await screenshot(page, 'admin', { fullPage: true });
});

test('agents: pick an agent, upload a file, chat', { timeout: 90000 }, async (t) => {
  if (!agentRoutes) { t.skip('the agent API is not mounted in this build yet'); return; }
  const { page } = browser;
  await page.getByRole('link', { name: 'Agents' }).click();
  const select = page.getByLabel('Agent', { exact: true });
  await select.waitFor();
  await select.selectOption({ label: 'Go reviewer' });
  await page.getByLabel('Context file').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\nUse errors.Is to compare wrapped errors.\n') });
  await page.getByRole('button', { name: 'Upload file' }).click();
  await page.getByText(/notes\.md: \d+ characters/).waitFor({ timeout: 20000 });
  await page.getByLabel('Message', { exact: true }).fill('How should I compare wrapped errors in Go?');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.msg-ai:not(.streaming) .msg-content').last().waitFor({ timeout: 30000 });
  assert.ok((await page.locator('.msg-ai .msg-content').last().textContent()).length > 10);
  await page.locator('.conv-list button.conv').first().waitFor();
  await screenshot(page, 'agents');
});

test('a non-admin does not see the admin pages', { timeout: 60000 }, async (t) => {
  if (!agentRoutes) { t.skip('the agent API is not mounted in this build yet'); return; }
  const { page } = browser;
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(/#\/login/);
  await registerAndLogin(page, server.base);
  assert.equal(await page.getByRole('link', { name: 'Admin' }).isVisible(), false);
  await page.goto(`${server.base}/#/admin`);
  await page.getByText('This page is for administrators only.').waitFor();
});
