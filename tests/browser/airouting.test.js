// Admin pages of model routing and usage (issue 18): per stage, ordered
// model pickers (vision models marked, only they offered for demeanor),
// errors shown inline under the stage; the usage page charts calls and
// saved calls per day and per stage. Screenshots: admin-routing.png and
// admin-usage.png. The server runs on the offline model; the routed
// providers point nowhere, since only the pages are under test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, screenshot, apiRegister } from './helpers.js';
import { domProblems } from './i18n-check.js';

let server;
let browser;
const API = '/api/xunzhi/v1';
let H;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  // The first user of a fresh database is the admin.
  const token = await apiRegister(server.base, 'routeadmin', 'secret-pass-1');
  H = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

async function call(method, path, body) {
  const r = await fetch(`${server.base}${API}${path}`, { method, headers: H, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = await r.json();
  assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(j)}`);
  return j.data;
}

async function property(aiName, modelName, supportsVision = false) {
  return (await call('POST', '/ai-properties', { aiName, aiType: 'openai', apiUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-key', modelName, supportsVision })).id;
}

async function loginPage(page) {
  await page.goto(`${server.base}/#/login`);
  await page.evaluate((tok) => {
    localStorage.setItem('aimeeting.token', tok);
    localStorage.removeItem('aimeeting.user');
  }, H.Authorization.slice('Bearer '.length));
}

/** Some usage on the offline model: an interview with duplicate answers, and chats. */
async function makeUsage() {
  const auth = { Authorization: H.Authorization };
  const sid = (await call('POST', '/interview/sessions')).sessionId;
  const fd = new FormData();
  fd.append('resumePdf', new Blob(['Jane Doe, backend engineer. Go, MySQL, Redis.\nFive years in a product team: owned features from design to release, wrote tests and runbooks, and mentored two junior engineers (doctext.min-chars is 200).\n'], { type: 'text/plain' }), 'resume.txt');
  assert.equal((await fetch(`${server.base}${API}/interview/sessions/${sid}/interview-questions`, { method: 'POST', headers: auth, body: fd })).status, 200);
  for (const no of ['1', '2', '3']) {
    const body = JSON.stringify({ questionNumber: no, answerContent: `An index is a B-tree on the column; answer ${no} explains trade-offs.` });
    // A burst of duplicates: single-flight serves them from one model call.
    await Promise.all(Array.from({ length: 6 }, () => fetch(`${server.base}${API}/interview/sessions/${sid}/interview/answer-json`, { method: 'POST', headers: H, body }).then((r) => r.text())));
  }
  for (const text of ['Hello there', 'What is an index?']) {
    const conv = await call('POST', '/ai/conversations', {});
    const r = await fetch(`${server.base}${API}/ai/sessions/${conv.sessionId}/chat`, { method: 'POST', headers: H, body: JSON.stringify({ inputMessage: text }) });
    await r.text();
  }
}

test('routing page without models: "Add a model" disabled with a hint; no raw stage ids in Chinese', { timeout: 120000 }, async () => {
  const { page } = browser;
  await loginPage(page);
  await page.goto(`${server.base}/#/admin`);
  await page.reload(); // the page learns at start that the token is an admin's
  await page.getByRole('link', { name: 'Model routing' }).click();
  await page.getByRole('heading', { name: 'Model routing', level: 1 }).waitFor();
  const stage = (id) => page.locator(`.route-stage[data-stage="${id}"]`);
  const add = stage('chat').getByRole('button', { name: 'Add a model' });
  assert.equal(await add.isDisabled(), true, 'nothing to add');
  const hint = stage('chat').locator('.route-add-hint');
  assert.equal(await hint.textContent(), 'Add and enable a model under Configuration first.');
  assert.equal(await add.getAttribute('aria-describedby'), await hint.getAttribute('id'));
  // English shows the technical id beside the name.
  assert.equal(await stage('interview-extraction').locator('h3 .stage-id').textContent(), 'interview-extraction');

  await switchTo(page, 'zh-CN');
  await page.getByRole('heading', { name: '模型路由', level: 1 }).waitFor();
  assert.equal(await stage('chat').getByRole('button', { name: '添加模型' }).isDisabled(), true);
  assert.equal(await stage('chat').locator('.route-add-hint').textContent(), '请先在“配置”中添加并启用模型。');
  const h3 = stage('interview-extraction').locator('h3');
  assert.equal(await h3.locator('.stage-id').count(), 0, 'no raw id beside the Chinese name');
  assert.doesNotMatch(await h3.textContent(), /interview-extraction/);
  assert.deepEqual(await domProblems(page, 'zh-CN'), []);
  await switchTo(page, 'en');
});

test('routing page: ordered pickers per stage, vision marked, errors inline, saved', { timeout: 120000 }, async () => {
  const strong = await property('Strong model', 'gpt-strong');
  const fast = await property('Fast model', 'gpt-fast');
  const vision = await property('Vision model', 'gpt-vision', true);
  const temp = await property('Temporary model', 'gpt-temp');
  await makeUsage();
  const { page } = browser;
  await loginPage(page);
  await page.goto(`${server.base}/#/admin`);
  await page.reload(); // the page learns at start that the token is an admin's
  await page.getByRole('link', { name: 'Model routing' }).click();
  await page.getByRole('heading', { name: 'Model routing', level: 1 }).waitFor();

  const stage = (id) => page.locator(`.route-stage[data-stage="${id}"]`);
  assert.match(await stage('interview-evaluation').textContent(), /Uses the default model/);

  // Evaluation: the strong model, then the fast one as its fallback.
  await stage('interview-evaluation').getByRole('button', { name: 'Add a model' }).click();
  await stage('interview-evaluation').getByLabel('Model 1 for Answer evaluation').selectOption(fast);
  await stage('interview-evaluation').getByRole('button', { name: 'Add a model' }).click();
  await stage('interview-evaluation').getByLabel('Model 2 for Answer evaluation').selectOption(strong);
  await stage('interview-evaluation').getByRole('button', { name: 'Move up 2' }).click();
  assert.equal(await stage('interview-evaluation').getByLabel('Model 1 for Answer evaluation').inputValue(), strong);
  // Follow-ups: the fast model.
  await stage('interview-followup').getByRole('button', { name: 'Add a model' }).click();
  await stage('interview-followup').getByLabel('Model 1 for Follow-up questions').selectOption(fast);
  // Demeanor offers only vision models, marked as such.
  await stage('interview-demeanor').getByRole('button', { name: 'Add a model' }).click();
  const demeanor = stage('interview-demeanor').getByLabel('Model 1 for Demeanor (vision)');
  const offered = await demeanor.locator('option').allTextContents();
  assert.deepEqual(offered.slice(1), ['Vision model · gpt-vision · vision']);
  await demeanor.selectOption(vision);
  await stage('interview-demeanor').locator('.badge-vision').waitFor();

  // An empty row is refused in the page, under its stage.
  await stage('chat').getByRole('button', { name: 'Add a model' }).click();
  await page.getByRole('button', { name: 'Save routing' }).click();
  await stage('chat').locator('.alert-error', { hasText: 'Choose a model in every row' }).waitFor();

  // The server's refusal shows under the stage it names: the chosen model
  // was deleted meanwhile.
  await stage('chat').getByLabel('Model 1 for Chat (default model)').selectOption(temp);
  await call('DELETE', `/ai-properties/${temp}`);
  await page.getByRole('button', { name: 'Save routing' }).click();
  const err = stage('chat').locator('.alert-error');
  await err.waitFor();
  assert.match(await err.textContent(), /unknown ai-property id/);
  await stage('chat').getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('button', { name: 'Save routing' }).click();
  await page.locator('.toast-success', { hasText: 'Routing saved' }).waitFor();

  const saved = await call('GET', '/ai-routing');
  assert.deepEqual(saved.routes['interview-evaluation'].aiIds, [strong, fast]);
  assert.deepEqual(saved.routes['interview-followup'].aiIds, [fast]);
  assert.deepEqual(saved.routes['interview-demeanor'].aiIds, [vision]);
  assert.deepEqual(saved.routes.chat.aiIds, []);
  // A routed model cannot be deleted: the API says which stages use it.
  const del = await fetch(`${server.base}${API}/ai-properties/${fast}`, { method: 'DELETE', headers: H });
  assert.equal(del.status, 409);
  assert.match((await del.json()).message, /interview-evaluation, interview-followup/);
  await screenshot(page, 'admin-routing', { fullPage: true });

  assert.deepEqual(await domProblems(page, 'en'), []);

  // The same page in Chinese, through the header switch.
  await switchTo(page, 'zh-CN');
  await page.getByRole('heading', { name: '模型路由', level: 1 }).waitFor();
  assert.match(await stage('interview-demeanor').textContent(), /仪态评估（视觉）/);
  assert.match(await page.locator('.admin-links').textContent(), /用量统计/);
  assert.deepEqual(await domProblems(page, 'zh-CN'), []);
  await switchTo(page, 'en');
});

/** Clicks the header's language switch and waits for the page to follow. */
async function switchTo(page, locale) {
  await page.locator(`#lang-switch [data-lang="${locale}"]`).click();
  await page.waitForFunction((l) => document.documentElement.lang === l, locale);
  await page.waitForFunction(() => !document.querySelector('main .loading'));
}

test('usage page: totals, charts per day and per stage, table by model', { timeout: 120000 }, async () => {
  const { page } = browser;
  await page.goto(`${server.base}/#/admin-usage`);
  await page.reload();
  await page.getByRole('heading', { name: 'Model usage', level: 1 }).waitFor();
  await page.locator('svg.usage-chart').first().waitFor();
  assert.equal(await page.locator('svg.usage-chart').count(), 2);
  const stageChart = await page.locator('svg.usage-chart').nth(1).getAttribute('aria-label');
  assert.match(stageChart, /Question generation \d+ calls/);
  const api = await call('GET', '/ai-usage?groupBy=stage');
  assert.ok(api.totals.calls >= 5, `calls ${api.totals.calls}`);
  const shown = await page.locator('.usage-totals strong').first().textContent();
  assert.equal(shown.replace(/\D/g, ''), String(api.totals.calls));
  // The table by model: the offline model served everything.
  await page.getByLabel('Table by').selectOption('model');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.locator('td', { hasText: 'offline' }).first().waitFor();
  assert.deepEqual(await domProblems(page, 'en'), []);
  await screenshot(page, 'admin-usage', { fullPage: true });

  await switchTo(page, 'zh-CN');
  await page.getByRole('heading', { name: '模型用量', level: 1 }).waitFor();
  await page.locator('svg.usage-chart').first().waitFor();
  assert.deepEqual(await domProblems(page, 'zh-CN'), []);
  await switchTo(page, 'en');
});
