// Usernames in any script (issue 17): the registration form shows the rule
// next to the field before anything is submitted, says what is wrong while
// typing and refuses to submit, and 张伟 registers and logs in.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser } from './helpers.js';

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

test('the username rule is shown next to the field and checked before submitting; 张伟 registers and logs in', { timeout: 60000 }, async () => {
  const { page } = browser;
  const registrations = [];
  page.on('request', (req) => { if (req.url().endsWith('/users/register')) registrations.push(req.postDataJSON()); });
  await page.goto(`${server.base}/#/register`);
  const username = page.getByLabel('Username');
  await username.waitFor();

  // Before typing or submitting: the rule is next to the field and describes it.
  const hintId = (await username.getAttribute('aria-describedby')).split(' ')[0];
  const hint = page.locator(`#${hintId}`);
  assert.match(await hint.textContent(), /2 to 32 characters: letters of any script \(such as 张伟 or alice\), digits, _ \. or -/);
  assert.ok(await hint.isVisible(), 'the rule is visible');
  const [fieldBox, hintBox] = [await username.boundingBox(), await hint.boundingBox()];
  assert.ok(hintBox.y >= fieldBox.y + fieldBox.height - 1 && hintBox.y - (fieldBox.y + fieldBox.height) < 40, 'the rule sits right under the field');
  const problem = page.locator('.username-problem');
  assert.equal(await problem.isVisible(), false, 'no complaint before typing');

  const cases = [
    ['张伟😀', /Not allowed: “😀”/],
    ['张 伟', /Not allowed: spaces/],
    ['张', /Too short \(1 character\)/],
    ['伟'.repeat(33), /Too long \(33 characters\)/],
  ];
  await page.getByLabel('Password').fill('secret-pass-1');
  for (const [name, want] of cases) {
    await username.fill(name);
    await problem.waitFor({ state: 'visible' });
    assert.match(await problem.textContent(), want, name);
    assert.match(await problem.textContent(), /letters of any script/, 'the complaint states the rule');
    assert.equal(await username.evaluate((el) => el.validity.valid), false, `${name} marks the field invalid`);
    await page.getByRole('button', { name: 'Create account' }).click();
    assert.match(page.url(), /#\/register$/, 'still on the form');
  }
  assert.deepEqual(registrations, [], 'nothing was sent for names that break the rule');

  await username.fill('张伟');
  await problem.waitFor({ state: 'hidden' });
  assert.equal(await username.evaluate((el) => el.validity.valid), true);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/#\/interview/);
  assert.deepEqual(registrations.map((r) => r.username), ['张伟']);
  await page.locator('#user-name', { hasText: '张伟' }).waitFor();

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.goto(`${server.base}/#/login`);
  await page.getByLabel('Username').fill('张伟');
  await page.getByLabel('Password').fill('secret-pass-1');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/#\/interview/);
  assert.equal(await page.locator('#user-name').textContent(), '张伟');
});
