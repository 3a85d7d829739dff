// Every page in both languages (issue 17): a browser whose language is
// zh-CN gets the Chinese page; the header switch turns each page into
// English and back at once. On every page and state (login, register, the
// interview's upload, ready, question, feedback and report, chat, agents,
// speech synthesis, admin) the rendered DOM has no untranslated catalog key,
// no Chinese outside user content in English and no English words outside
// user content and technical terms in Chinese. The chosen language is saved
// to the account and wins over the browser's on the next login. Chinese
// screenshots of the interview, the report and chat go to docs/screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, screenshot } from './helpers.js';
import { domProblems } from './i18n-check.js';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser({ locale: 'zh-CN' });
});

after(async () => {
  if (browser) {
    if (browser.errors.length) console.log('page errors:', browser.errors);
    await browser.close();
  }
  if (server) await server.stop();
});

const RESUME_HTML = `<!doctype html><html lang="zh-CN"><meta charset="utf-8">
<body style="font-family: 'Noto Sans CJK SC', sans-serif; padding: 40px">
<h1>张伟 — 后端工程师</h1>
<p>五年 Go 后端开发经验，熟悉 MySQL、Redis、Kafka、Docker 和 Kubernetes。</p>
<h2>工作经历</h2>
<p>在某电商公司负责订单服务，使用 Go 和 MySQL 支撑每秒 3000 次请求；通过 Redis 缓存把 p99 延迟降低了 40%。</p>
<p>设计了支付事件的 Kafka 消息管道，实现了恰好一次的处理语义，并负责线上故障排查和性能优化。</p>
<h2>教育背景</h2><p>浙江大学 计算机科学与技术 本科</p>
</body></html>`;

const ANSWER = '我会先明确需求和约束，再说明设计。比如 MySQL 的索引是 B+ 树，查询时避免全表扫描，范围查询保持有序，'
  + '代价是降低写入速度并占用存储空间。在订单服务中，我先测量 p99 延迟，再加上带过期时间的 Redis 缓存，写入时让缓存失效，'
  + '最后用 3000 QPS 的压测验证效果。主要风险是一致性、缓存击穿和热点键，我用单飞加载和随机过期时间来处理。';

/** Makes a Chinese PDF resume with chromium itself (page.pdf is its print-to-pdf). */
async function chineseResumePdf() {
  const p = await browser.context.newPage();
  await p.setContent(RESUME_HTML);
  const pdf = await p.pdf({ format: 'A4' });
  await p.close();
  return pdf;
}

async function expectClean(label, locale) {
  const { page } = browser;
  const problems = await domProblems(page, locale);
  assert.deepEqual(problems, [], `${label} (${locale})`);
}

/** Clicks the header switch and waits for the page to follow. */
async function switchTo(locale) {
  const { page } = browser;
  await page.locator(`#lang-switch [data-lang="${locale}"]`).click();
  await page.waitForFunction((l) => document.documentElement.lang === l
    && document.querySelector(`#lang-switch [data-lang="${l}"]`).getAttribute('aria-pressed') === 'true', locale);
  await page.waitForFunction(() => !document.querySelector('main .loading'));
}

/**
 * Checks the current page in Chinese, switches to English and checks it
 * again (ready says when the view is rendered), then back to Chinese.
 */
async function bothLocales(label, ready) {
  await ready('zh-CN');
  await expectClean(label, 'zh-CN');
  await switchTo('en');
  await ready('en');
  await expectClean(label, 'en');
  await switchTo('zh-CN');
  await ready('zh-CN');
}

const byLocale = (zh, en) => async (loc) => { await browser.page.getByRole('heading', { name: loc === 'en' ? en : zh }).first().waitFor(); };

test('every page in Chinese and English, switched at once; the choice is saved to the account', { timeout: 420000 }, async () => {
  try {
    await walk();
  } catch (e) {
    await browser.page.screenshot({ path: `${process.env.TMPDIR || '/tmp'}/aimeeting-i18n-failure.png`, fullPage: true }).catch(() => {});
    throw e;
  }
});

async function walk() {
  const { page } = browser;
  const { base } = server;
  const acceptLanguages = [];
  page.on('request', (r) => { if (r.url().includes('/api/xunzhi/v1/')) acceptLanguages.push(r.headers()['accept-language']); });

  // A zh-CN browser, nothing chosen: the page is Chinese.
  await page.goto(`${base}/`);
  await page.waitForURL(/#\/login/);
  await page.getByRole('heading', { name: '登录' }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await bothLocales('login', byLocale('登录', 'Log in'));
  await page.goto(`${base}/#/register`);
  await bothLocales('register', byLocale('创建账号', 'Create an account'));

  // Register in Chinese: the first user is the admin.
  const username = `走查${Date.now().toString(36)}`;
  await page.getByLabel('用户名').fill(username);
  await page.getByLabel('密码').fill('secret-pass-1');
  await page.getByRole('button', { name: '创建账号' }).click();
  await page.waitForURL(/#\/interview/);
  await bothLocales('interview home', byLocale('模拟面试', 'Mock interview'));

  // Upload a Chinese resume (PDF).
  await page.getByRole('button', { name: '开始新的面试' }).click();
  await bothLocales('upload', byLocale('上传简历', 'Upload your resume'));
  await page.getByLabel(/^简历/).setInputFiles({ name: '简历.pdf', mimeType: 'application/pdf', buffer: await chineseResumePdf() });
  await page.getByRole('button', { name: '上传并准备问题' }).click();
  await page.getByRole('heading', { name: /面试已准备就绪/ }).waitFor({ timeout: 60000 });
  await bothLocales('ready', byLocale(/面试已准备就绪/, /Your interview is ready/));

  // A question, and the feedback on an answer, in Chinese.
  await page.getByRole('button', { name: '开始面试' }).click();
  await page.locator('.question-text').waitFor();
  await expectClean('question', 'zh-CN');
  // An answer: its feedback card (checked in locale), then the next question.
  const answerOne = async (submit, locale) => {
    const title = await page.locator('.question-title').textContent();
    await page.locator('textarea[name="answerContent"]').fill(ANSWER);
    await page.getByRole('button', { name: submit }).click();
    await page.locator('.feedback-card').waitFor({ timeout: 60000 });
    assert.match(await page.locator('.feedback-card .feedback-title').textContent(), locale === 'en' ? /^Feedback on/ : /的反馈/);
    assert.match(await page.locator('.feedback-card .level').textContent(), locale === 'en' ? /excellent|qualified|needs improvement/ : /优秀|合格|有待提高/);
    await expectClean('feedback card', locale);
    if (locale === 'zh-CN') await screenshot(page, 'zh-interview-feedback', { fullPage: true });
    await page.locator('.feedback-card .next-btn').click();
    await page.waitForFunction((prev) => {
      const fin = document.querySelector('.finish-card');
      const t = document.querySelector('.question-title');
      return (fin && !fin.hidden) || (t && t.textContent !== prev && !t.closest('[hidden]'));
    }, title, { timeout: 60000 });
  };
  await answerOne('提交回答', 'zh-CN');
  await expectClean('question with feedback', 'zh-CN');
  await page.locator('textarea[name="answerContent"]').fill(ANSWER.slice(0, 80));
  await screenshot(page, 'zh-interview', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling on a phone (overflow ${overflow}px)`);
  await screenshot(page, 'zh-interview-phone', { fullPage: true });
  await page.setViewportSize({ width: 1280, height: 860 });

  // The same in English: the question re-rendered, then an answer's feedback.
  await switchTo('en');
  await page.locator('.question-text').waitFor();
  assert.match(await page.locator('.progress-text').textContent(), /^Question \d+ of \d+$/);
  assert.equal(await page.locator('textarea[name="answerContent"]').inputValue(), ANSWER.slice(0, 80), 'the answer being typed survives the switch');
  await expectClean('question', 'en');
  await answerOne('Submit answer', 'en');
  await expectClean('question with feedback', 'en');
  const englishRequests = acceptLanguages.slice(-3);
  assert.ok(englishRequests.length && englishRequests.every((h) => h === 'en'), `Accept-Language after switching: ${englishRequests}`);
  await switchTo('zh-CN');
  await page.locator('.question-text').waitFor();

  // End early (confirm by clicking twice): the report.
  await page.getByRole('button', { name: '提前结束面试' }).click();
  await page.getByRole('button', { name: '再点一次立即结束' }).click();
  await page.waitForURL(/#\/interview\/report\//);
  const radarLoaded = async () => {
    await page.getByRole('heading', { name: /面试报告|Interview report/ }).waitFor();
    await page.waitForFunction(() => { const i = document.querySelector('img.radar'); return i && i.complete && i.naturalWidth > 0; }, null, { timeout: 20000 });
  };
  await bothLocales('report', radarLoaded);
  assert.equal(await page.locator('.dim-label').first().textContent(), '简历');
  await screenshot(page, 'zh-report', { fullPage: true });

  // The interview home lists the report.
  await page.goto(`${base}/#/interview`);
  await bothLocales('interview home with a report', async (loc) => {
    await page.getByRole('heading', { name: loc === 'en' ? 'Your reports' : '我的报告' }).waitFor();
    await page.locator('.records a').first().waitFor();
  });

  // Chat: a Chinese conversation with the offline model.
  await page.goto(`${base}/#/chat`);
  await page.getByRole('heading', { name: '新建会话' }).waitFor();
  await page.getByLabel('消息', { exact: true }).fill('你好，请用三句话介绍一下 Redis 的持久化方式。');
  await page.getByRole('button', { name: '发送' }).click();
  await page.waitForFunction(() => {
    const ai = document.querySelector('.msg-ai');
    return ai && !ai.classList.contains('streaming') && ai.querySelector('.msg-content').textContent.length > 0;
  }, null, { timeout: 60000 });
  await page.locator('.conv-list button.conv').first().waitFor();
  const chatReady = async () => { await page.locator('.msg-ai .msg-content').first().waitFor(); };
  await bothLocales('chat', chatReady);
  // docs/screenshots/zh-chat.png: chat-markdown.test.js (an answer in Markdown).

  await page.goto(`${base}/#/agents`);
  await bothLocales('agents', async () => { await page.locator('select[name="agentId"]').waitFor(); });
  // Speech synthesis with a finished Chinese task (its status from the catalog).
  await page.goto(`${base}/#/tts`);
  await page.getByLabel('文字', { exact: true }).fill('你好，欢迎参加模拟面试。');
  await page.getByRole('button', { name: '开始合成' }).click();
  await page.locator('#tts-audio').waitFor({ state: 'visible', timeout: 60000 });
  assert.match(await page.locator('#tts-progress-text').textContent(), /100% · 完成/);
  await bothLocales('speech synthesis', async (loc) => {
    await page.getByRole('heading', { name: loc === 'en' ? 'Speech synthesis' : '语音合成' }).waitFor();
    await page.locator('ul.records li').first().waitFor();
  });
  assert.match(await page.locator('ul.records li').first().textContent(), /完成/);
  await page.goto(`${base}/#/admin`);
  await bothLocales('admin', byLocale('系统管理', 'Administration'));

  // The choice is the account's: zh-CN now (the last switch), returned by /users/me.
  const token = await page.evaluate(() => localStorage.getItem('aimeeting.token'));
  const me = await (await fetch(`${base}/api/xunzhi/v1/users/me`, { headers: { Authorization: `Bearer ${token}` } })).json();
  assert.equal(me.data.language, 'zh-CN');
  const bad = await (await fetch(`${base}/api/xunzhi/v1/users`, {
    method: 'PUT', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ language: 'fr' }),
  }));
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).message, /language/);

  // A fresh English browser: the login page is English, the account's Chinese wins after logging in.
  const en = await launchBrowser({ locale: 'en-US' });
  try {
    await en.page.goto(`${base}/#/login`);
    await en.page.getByRole('heading', { name: 'Log in' }).waitFor();
    assert.equal(await en.page.evaluate(() => document.documentElement.lang), 'en');
    await en.page.getByLabel('Username').fill(username);
    await en.page.getByLabel('Password').fill('secret-pass-1');
    await en.page.getByRole('button', { name: 'Log in' }).click();
    await en.page.getByRole('heading', { name: '模拟面试' }).waitFor();
    assert.equal(await en.page.evaluate(() => document.documentElement.lang), 'zh-CN');
    await en.page.reload();
    await en.page.getByRole('heading', { name: '模拟面试' }).waitFor();
  } finally {
    await en.close();
  }
  assert.deepEqual(browser.errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no script errors');
}
