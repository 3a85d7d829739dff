// What the candidate reads is in the page's language even when the browser
// speaks another (an English browser, the page switched to 中文): the
// validation of the register form, an empty answer, and the report's radar
// picture, with its absent demeanor score, all in Chinese.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, apiRegister } from './helpers.js';

const API = '/api/xunzhi/v1';
let server;

before(async () => { server = await startServer(); });
after(async () => { if (server) await server.stop(); });

async function toChinese(page) {
  await page.locator('#lang-switch [data-lang="zh-CN"]').click();
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
}

test('register form: the browser\'s validation bubbles speak the page\'s language', { timeout: 60000 }, async () => {
  const { page, errors, close } = await launchBrowser({ locale: 'en-US' });
  try {
    await page.goto(`${server.base}/#/register`);
    await toChinese(page);
    const submit = page.getByRole('button', { name: '创建账号' });
    await submit.click();
    assert.equal(await page.locator('input[name=username]').evaluate((e) => e.validationMessage), '请填写此项。');
    await page.locator('input[name=username]').fill('张伟');
    await page.locator('input[name=password]').fill('abc');
    await submit.click();
    assert.equal(await page.locator('input[name=password]').evaluate((e) => e.validationMessage), '请至少输入 8 个字符。');
    await page.locator('input[name=password]').fill('secret-pass-1');
    await page.locator('input[name=mail]').fill('not-an-email');
    await submit.click();
    assert.equal(await page.locator('input[name=mail]').evaluate((e) => e.validationMessage), '请输入有效的电子邮箱地址。');
    await page.locator('input[name=mail]').fill('zhang@example.com');
    assert.equal(await page.locator('input[name=mail]').evaluate((e) => e.validationMessage), '', 'the message goes when the value is fixed');
    await submit.click();
    await page.waitForURL(/#\/interview/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('interview in Chinese: an empty answer is told in the page, the radar is Chinese', { timeout: 120000 }, async () => {
  const { page, errors, close } = await launchBrowser({ locale: 'en-US' });
  try {
    const username = `lang${Date.now().toString(36)}`;
    const token = await apiRegister(server.base, username, 'secret-pass-1');
    const H = { Authorization: `Bearer ${token}` };
    const me = (await (await fetch(`${server.base}${API}/users/me`, { headers: H })).json()).data;
    // An English resume: the interview is in English, the page in Chinese.
    const sid = (await (await fetch(`${server.base}${API}/interview/sessions`, { method: 'POST', headers: H })).json()).data.sessionId;
    const fd = new FormData();
    fd.append('resumePdf', new Blob(['Jane Doe, backend engineer. Skills: Go, MySQL, Redis, Kafka, Docker. '
      + 'Built an order service at 3000 QPS with Go and MySQL; cut p99 latency by 40% with Redis caching. '
      + 'Designed a Kafka pipeline for payment events with exactly-once processing and idempotent consumers.'], { type: 'text/plain' }), 'resume.txt');
    assert.equal((await fetch(`${server.base}${API}/interview/sessions/${sid}/interview-questions`, { method: 'POST', headers: H, body: fd })).status, 200);
    await page.goto(`${server.base}/#/login`);
    await page.evaluate(([tok, user]) => {
      localStorage.setItem('aimeeting.token', tok);
      localStorage.setItem('aimeeting.user', JSON.stringify(user));
    }, [token, { id: me.id, username: me.username, isAdmin: me.isAdmin }]);
    await page.goto(`${server.base}/#/interview/s/${sid}`);
    await toChinese(page);
    await page.getByRole('button', { name: '开始面试' }).click();
    const answer = page.locator('textarea[name=answerContent]');
    await answer.waitFor();
    await page.getByRole('button', { name: '提交回答' }).click();
    await page.getByText('请先输入或说出您的回答。').waitFor();
    assert.equal(await answer.evaluate((e) => e === document.activeElement), true, 'the answer field has the focus');

    // The report: the radar picture is labelled in the page's language.
    const radarRequest = page.waitForRequest((r) => r.url().endsWith('/radar-chart.svg'));
    await page.goto(`${server.base}/#/interview/report/${sid}`);
    const sent = (await radarRequest).headers();
    assert.equal(sent['accept-language'], 'zh-CN', 'the page asks for the picture in its language');
    await page.waitForFunction(() => { const i = document.querySelector('img.radar'); return i && i.complete && i.naturalWidth > 0; });
    // The picture the page got: the same request again.
    const svg = await (await fetch(`${server.base}${API}/interview/sessions/${sid}/radar-chart.svg`, {
      headers: { Authorization: sent.authorization, 'Accept-Language': sent['accept-language'] },
    })).text();
    assert.match(svg, />面试表现</);
    assert.match(svg, />未评估</);
    assert.doesNotMatch(svg, /n\/a|Interview radar chart/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('upload: the candidate picks the interview language (an English resume, a Chinese interview)', { timeout: 120000 }, async () => {
  const { page, errors, close } = await launchBrowser({ locale: 'zh-CN' });
  try {
    const username = `pick${Date.now().toString(36)}`;
    const token = await apiRegister(server.base, username, 'secret-pass-1');
    const H = { Authorization: `Bearer ${token}` };
    const me = (await (await fetch(`${server.base}${API}/users/me`, { headers: H })).json()).data;
    await page.goto(`${server.base}/#/login`);
    await page.evaluate(([tok, user]) => {
      localStorage.setItem('aimeeting.token', tok);
      localStorage.setItem('aimeeting.user', JSON.stringify(user));
    }, [token, { id: me.id, username: me.username, isAdmin: me.isAdmin }]);
    await page.goto(`${server.base}/#/interview`);
    await toChinese(page);
    await page.getByRole('button', { name: '开始新的面试' }).click();
    await page.getByLabel(/^简历/).setInputFiles({ name: 'resume.txt', mimeType: 'text/plain', buffer: Buffer.from(
      'Emily Carter, frontend engineer. Led the rewrite of the Shipment Tracker dashboard from AngularJS to React and TypeScript, '
      + 'cutting page load time by 55%. Built a shared design system in Storybook used by six teams. Skills: React, TypeScript, '
      + 'Vue.js, Node.js, GraphQL, Webpack, accessibility and performance optimization.') });
    assert.equal(await page.getByLabel('面试语言').inputValue(), '', 'the resume\'s language unless the candidate picks one');
    await page.getByLabel('面试语言').selectOption('zh-CN');
    await page.getByRole('button', { name: '上传并准备问题' }).click();
    await page.locator('details.question-preview').click();
    const questions = await page.locator('details.question-preview li').allTextContents();
    assert.ok(questions.length >= 5, `questions: ${questions}`);
    for (const q of questions) assert.match(q, /\p{Script=Han}/u, `a Chinese question: ${q}`);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});
