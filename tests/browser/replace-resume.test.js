// Issue 14 on the web page: the "ready" screen says what was read from the
// resume, and "Replace resume" re-uploads before the interview begins and
// shows the regenerated questions; once the interview has begun, the
// action is gone. Desktop and phone screenshots of the ready screen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, registerAndLogin, screenshot } from './helpers.js';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  if (browser) {
    if (browser.errors.length) console.log('page errors:', browser.errors);
    await browser.close();
  }
  if (server) await server.stop();
});

const RESUME_A = `Ann Lee — backend engineer
Skills: Go, MySQL, Redis, Kafka.
Built an order service at 3000 QPS with Go and MySQL; cut p99 latency by 40% with Redis caching.
Designed a Kafka pipeline for payment events with exactly-once processing.
Experience: Senior engineer at Northwind Payments, 2020-2024; engineer at Contoso Retail, 2017-2020.
Education: BSc Computer Science, 2017. Contact: ann.lee@example.com.
`;

const RESUME_B = `Ann Lee — frontend engineer
Skills: React, TypeScript, Webpack, CSS.
Shipped a React design system used by 12 teams; cut bundle size by 30% with Webpack code splitting.
Rewrote the checkout in TypeScript with accessibility audits.
Experience: Lead frontend engineer at Fabrikam, 2021-2024; web developer at Tailspin Toys, 2018-2021.
Education: BA Interaction Design, 2018. Contact: ann.lee@example.com.
`;

const chars = (s) => [...s].length;
const fmt = (n) => n.toLocaleString('en-US').replace(/,/g, '\u202f');

const readText = (page) => page.locator('.read-summary .read-text').textContent();

async function previewQuestions(page) {
  return page.locator('.question-preview li').allTextContents();
}

test('the ready screen shows what was read and replaces the resume before the interview begins', { timeout: 180000 }, async () => {
  const { page } = browser;
  try {
    await registerAndLogin(page, server.base);
    await page.getByRole('button', { name: 'Start a new interview' }).click();
    await page.getByRole('heading', { name: 'Upload your resume' }).waitFor();
    await page.getByLabel(/Resume \(PDF, TXT or MD/).setInputFiles({ name: 'resume-a.txt', mimeType: 'text/plain', buffer: Buffer.from(RESUME_A) });
    await page.getByRole('button', { name: 'Upload and prepare questions' }).click();
    await page.getByRole('heading', { name: /Your interview is ready/ }).waitFor({ timeout: 60000 });

    // What was read: the characters of the file, as plain text.
    const readA = await readText(page);
    assert.equal(readA, `Read ${fmt(chars(RESUME_A))} characters (plain text)`);
    assert.equal(await page.locator('.read-little').count(), 0, 'a whole resume is not flagged as little text');
    const questionsA = await previewQuestions(page);
    assert.ok(questionsA.length >= 5, `5-8 questions, got ${questionsA.length}`);
    assert.ok(questionsA.some((q) => /Redis|Kafka|MySQL|Go\b/.test(q)), `questions of A name its skills: ${questionsA}`);

    // After a reload the ready screen comes back with the same summary.
    await page.reload();
    await page.getByRole('heading', { name: /Your interview is ready/ }).waitFor();
    assert.equal(await readText(page), readA);
    assert.deepEqual(await previewQuestions(page), questionsA);

    // Replace the resume with B: new summary, new questions about B.
    await page.getByLabel(/New resume/).setInputFiles({ name: 'resume-b.md', mimeType: 'text/markdown', buffer: Buffer.from(RESUME_B) });
    await page.getByRole('button', { name: 'Replace resume' }).click();
    await page.waitForFunction((prev) => {
      const el = document.querySelector('.read-summary .read-text');
      return el && el.textContent !== prev;
    }, readA, { timeout: 60000 });
    assert.equal(await readText(page), `Read ${fmt(chars(RESUME_B))} characters (plain text)`);
    const questionsB = await previewQuestions(page);
    assert.notDeepEqual(questionsB, questionsA, 'the questions were regenerated');
    assert.ok(questionsB.some((q) => /React|TypeScript|Webpack|CSS/.test(q)), `questions of B name its skills: ${questionsB}`);

    // Screenshots of the ready screen (questions open), desktop and phone.
    await page.locator('.question-preview summary').click();
    await screenshot(page, 'interview-ready', { fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no horizontal scrolling on a phone (overflow ${overflow}px)`);
    await screenshot(page, 'interview-ready-phone', { fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });

    // Begin: the first question is one of B's, and replacing is no longer offered.
    await page.getByRole('button', { name: 'Begin the interview' }).click();
    await page.locator('.question-text').waitFor();
    assert.equal(await page.locator('.question-text').textContent(), questionsB[0]);
    assert.equal(await page.getByRole('button', { name: 'Replace resume' }).count(), 0);
    await page.reload();
    await page.locator('.question-text').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Replace resume' }).count(), 0, 'no replace action after a reload of a started interview');

    assert.deepEqual(browser.errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no script errors');
  } catch (e) {
    await page.screenshot({ path: `${process.env.TMPDIR || '/tmp'}/aimeeting-replace-failure.png`, fullPage: true }).catch(() => {});
    throw e;
  }
});
