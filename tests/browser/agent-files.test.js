// The agents page lists the files of the open conversation: a file given to
// the agent appears with its size, downloads under its name, and can be
// deleted (after a confirmation); the agent's last answer can be regenerated.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startServer, launchBrowser, registerAndLogin } from './helpers.js';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const NOTES = '# Notes\nThe release is on Friday; the budget is 4200.\n';

test('agents: the conversation\'s files can be downloaded and deleted', { timeout: 90000 }, async () => {
  const { page, errors } = browser;
  await registerAndLogin(page, server.base, 'filesuser');
  await page.getByRole('link', { name: 'Agents' }).click();
  const panel = page.getByRole('region', { name: 'Files in this conversation' });
  await panel.getByText('No files yet.').waitFor();

  await page.getByLabel('Context file').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from(NOTES) });
  await page.getByRole('button', { name: 'Upload file' }).click();
  const item = panel.locator('li', { hasText: 'notes.md' });
  await item.waitFor({ timeout: 20000 });
  assert.match(await item.textContent(), new RegExp(`${Buffer.byteLength(NOTES)} bytes`));
  // The upload opened a conversation: untitled until its first message
  // (not the server's English "New conversation"), by the built-in agent
  // named in the page's language (not its id "general-agent-chat").
  assert.equal(await page.locator('.chat-title').textContent(), 'Untitled', 'the heading names the open conversation');
  const conv = page.locator('button.conv[aria-current="true"]');
  await conv.waitFor();
  assert.equal(await conv.locator('.conv-title').textContent(), 'Untitled');
  assert.match(await conv.locator('small').textContent(), /^General assistant · /);
  assert.doesNotMatch(await page.locator('.conv-list').textContent() + await page.locator('.chat-title').textContent(), /general-agent-chat|New conversation/);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    item.getByRole('button', { name: 'Download' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'notes.md');
  assert.equal(await readFile(await download.path(), 'utf8'), NOTES);

  page.once('dialog', (d) => d.accept());
  await item.getByRole('button', { name: 'Delete' }).click();
  await panel.getByText('No files yet.').waitFor();

  // The first message names the conversation; in Chinese the agent is 通用助手.
  await page.getByRole('textbox', { name: 'Message' }).fill('What is in the notes?');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.chat-title', { hasText: 'What is in the notes' }).waitFor();
  await page.locator('button.conv[aria-current="true"] .conv-title', { hasText: 'What is in the notes' }).waitFor({ timeout: 20000 });
  // The agent's answer can be written again: it replaces the old one.
  await page.locator('.msg-ai:not(.streaming) .msg-content').last().waitFor();
  const regen = page.getByRole('button', { name: 'Regenerate' });
  assert.equal(await regen.count(), 1, 'the last answer offers Regenerate');
  const answered = page.waitForResponse((r) => r.url().endsWith('/regenerate') && r.request().method() === 'POST');
  await regen.click();
  assert.equal((await answered).status(), 200);
  await page.locator('.msg-ai:not(.streaming) .msg-content').last().waitFor();
  assert.equal(await page.locator('.msg-ai').count(), 1, 'replaced, not added');
  assert.equal(await page.locator('.msg-ai .msg-error').isVisible(), false, 'no error');
  assert.match(await page.locator('.msg-ai .msg-content').textContent(), /\S/, 'an answer was written');
  await page.locator('#lang-switch [data-lang="zh-CN"]').click();
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  const zhConv = page.locator('button.conv', { hasText: 'What is in the notes' });
  await zhConv.waitFor({ timeout: 20000 });
  assert.match(await zhConv.locator('small').textContent(), /^通用助手 · /);
  assert.equal(await page.getByLabel('智能体').locator('option:checked').textContent(), '通用智能体（默认）');
  assert.deepEqual(errors, []);
});
