// An account imported from the original AI-Meeting (`aimeeting import
// --from-mysql`, its plain-text password) must choose a new password at its
// first login; afterwards the new one works and the prompt is gone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, launchBrowser, serverBinary, repoRoot } from './helpers.js';

const DB = `aimeeting_browser_${Date.now().toString(36)}`;
const mysqlArgs = ['-uroot', '-h127.0.0.1', '-P3306'];
const mysql = (sql, db) => execFileSync('mysql', [...mysqlArgs, ...(db ? [db] : [])], { input: sql });

let server;
let browser;

before(async () => {
  mysql(`CREATE DATABASE ${DB} CHARACTER SET utf8mb4`);
  mysql(readFileSync(path.join(repoRoot, 'cmd/server/testdata/original_schema.sql')), DB);
  mysql("INSERT INTO t_user (username, password, real_name, del_flag) VALUES ('olduser', 'old123', 'Old User', 0)", DB);
  server = await startServer();
  // The import writes into the server's database (the default SQLite file in its directory).
  execFileSync(serverBinary(), ['import', '--from-mysql', `root@tcp(127.0.0.1:3306)/${DB}`],
    { cwd: server.dir, env: { PATH: process.env.PATH, HOME: server.dir, AUTH_BCRYPT_COST: '4' }, stdio: ['ignore', 'pipe', 'pipe'] });
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  mysql(`DROP DATABASE IF EXISTS ${DB}`);
});

async function login(page, password) {
  await page.goto(`${server.base}/#/login`);
  await page.getByLabel('Username').fill('olduser');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

test('an imported account chooses a new password at its first login', { timeout: 90000 }, async () => {
  const { page, errors } = browser;
  await login(page, 'old123');
  const dialog = page.getByRole('dialog', { name: 'Choose a new password' });
  await dialog.waitFor();
  await dialog.getByLabel('New password').fill('short');
  await dialog.getByRole('button', { name: 'Save password' }).click();
  assert.ok(await dialog.isVisible(), 'a too-short password keeps the dialog open');
  await dialog.getByLabel('New password').fill('a-brand-new-pass');
  await dialog.getByRole('button', { name: 'Save password' }).click();
  await page.waitForURL(/#\/interview/);
  assert.equal(await dialog.count(), 0);

  // Log out once the interview page has loaded: a request still in flight
  // when the token is revoked would (rightly) get a 401.
  await page.waitForLoadState('networkidle');
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(/#\/login/);
  await login(page, 'a-brand-new-pass');
  await page.waitForURL(/#\/interview/);
  assert.equal(await page.getByRole('dialog').count(), 0, 'no prompt once the password is changed');
  assert.deepEqual(errors, []);
});
