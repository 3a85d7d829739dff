// The agents page lists the files of the open conversation: a file given to
// the agent appears with its size, downloads under its name, and can be
// deleted (after a confirmation).
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

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    item.getByRole('button', { name: 'Download' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'notes.md');
  assert.equal(await readFile(await download.path(), 'utf8'), NOTES);

  page.once('dialog', (d) => d.accept());
  await item.getByRole('button', { name: 'Delete' }).click();
  await panel.getByText('No files yet.').waitFor();
  assert.deepEqual(errors, []);
});
