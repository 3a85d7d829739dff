// The interview as a candidate meets it (issue 19), against a slow
// OpenAI-compatible fake model (fake-interview-model.js) and on a phone:
// the steps of an upload and an answer with elapsed times; a model failure
// as a sentence with Retry and a reference; the feedback card of each
// answer, in view and focused on a phone, waiting for "Next question"; a
// draft and the last feedback surviving a reload; Ctrl+Enter; the camera
// offered with a vision model; the live report marked in progress; Back
// leaving the report; a report without answers; the printed report. Every
// test fails on any uncaught page error or console error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, screenshot, screenshotDir, apiRegister } from './helpers.js';
import { startFakeModel, fakeModelEnv } from './fake-interview-model.js';

const API = '/api/xunzhi/v1';
const SLOW = { 'resume-profile-extraction': 1500, 'interview-extraction': 1500, 'interview-evaluation': 2000, 'interview-review': 1000, 'interview-followup': 800 };

let model;
let server;
let offline;

before(async () => {
  model = await startFakeModel({ latency: SLOW });
  server = await startServer(fakeModelEnv(model.baseURL));
  offline = await startServer();
});

after(async () => {
  if (server) await server.stop();
  if (offline) await offline.stop();
  if (model) await model.close();
});

const RESUME = `Jane Doe — backend engineer
Skills: Go, MySQL, Redis, Kafka, Docker, Kubernetes.
Built an order service at 3000 QPS with Go and MySQL; cut p99 latency by 40% with Redis caching.
Designed a Kafka pipeline for payment events with exactly-once processing.
`;
const ANSWER = 'I split the order service by write path: MySQL with a B+ tree index on (user_id, created_at), '
  + 'a Redis cache in front with jittered expiry, and single-flight loading against stampedes. The trade-off is '
  + 'slower writes; I measured p99 before and after at 3000 QPS.';

/** Fails on uncaught errors and console errors (resource 4xx/5xx the test causes itself are allowed). */
function assertNoPageErrors(errors, allowed = /Failed to load resource/) {
  assert.deepEqual(errors.filter((e) => !allowed.test(e)), [], 'no uncaught page errors or console errors');
}

/** Logs a fresh user into page (token and user in localStorage); returns the auth header. */
async function loginAs(page, base, prefix) {
  const username = `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
  const token = await apiRegister(base, username, 'secret-pass-1');
  const H = { Authorization: `Bearer ${token}` };
  const me = (await (await fetch(`${base}${API}/users/me`, { headers: H })).json()).data;
  await page.goto(`${base}/#/login`);
  await page.evaluate(([tok, user]) => {
    localStorage.setItem('aimeeting.token', tok);
    localStorage.setItem('aimeeting.user', JSON.stringify(user));
  }, [token, { id: me.id, username: me.username, isAdmin: me.isAdmin }]);
  return H;
}

/** A session with the resume uploaded through the API (READY). */
async function readySession(base, H) {
  const sid = (await (await fetch(`${base}${API}/interview/sessions`, { method: 'POST', headers: H })).json()).data.sessionId;
  const fd = new FormData();
  fd.append('resumePdf', new Blob([RESUME], { type: 'text/plain' }), 'resume.txt');
  const r = await fetch(`${base}${API}/interview/sessions/${sid}/interview-questions`, { method: 'POST', headers: H, body: fd });
  assert.equal(r.status, 200);
  return sid;
}

async function failureShot(page, name) {
  await page.screenshot({ path: `${process.env.TMPDIR || '/tmp'}/aimeeting-${name}-failure.png`, fullPage: true }).catch(() => {});
}

test('slow model: progress steps, failure with Retry, feedback card, drafts and feedback after reload, live report, Back, print', { timeout: 300000 }, async () => {
  const browser = await launchBrowser({ extraArgs: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'] });
  const { page } = browser;
  const { base } = server;
  try {
    await loginAs(page, base, 'ux');

    // Upload through the page: the steps of the upload with elapsed times.
    await page.goto(`${base}/#/interview`);
    await page.getByRole('button', { name: 'Start a new interview' }).click();
    await page.getByRole('heading', { name: 'Upload your resume' }).waitFor();
    await page.getByLabel(/Resume \(PDF, TXT or MD/).setInputFiles({ name: 'resume.txt', mimeType: 'text/plain', buffer: Buffer.from(RESUME) });
    await page.getByRole('button', { name: 'Upload and prepare questions' }).click();
    await page.locator('.progress-panel .step-current', { hasText: 'Building your profile' }).waitFor({ timeout: 15000 });
    await page.locator('.progress-panel .step-current', { hasText: 'Writing the questions' }).waitFor({ timeout: 15000 });
    assert.match(await page.locator('.progress-panel .step-done').first().textContent(), /Reading the file.*\d+ s/);
    assert.match(await page.locator('.progress-panel .progress-elapsed').textContent(), /^Elapsed: \d+ s$/);
    await page.getByRole('heading', { name: /Your interview is ready/ }).waitFor({ timeout: 30000 });
    const sid = decodeURIComponent(page.url().split('/').pop());
    await page.getByRole('button', { name: 'Begin the interview' }).click();
    await page.locator('.question-text').waitFor();

    // A vision model serves the demeanor stage: the camera is offered.
    await page.getByRole('button', { name: 'Turn on camera' }).click();
    await page.waitForFunction(() => { const v = document.querySelector('.camera video'); return v && v.videoWidth > 0; }, null, { timeout: 20000 });
    await page.getByRole('button', { name: 'Take a snapshot' }).click();
    await page.locator('.demeanor dl.facts').waitFor({ timeout: 20000 });
    assert.match(await page.locator('.demeanor').textContent(), /Composite\s*\d+/);
    await page.getByRole('button', { name: 'Turn off camera' }).click();

    // A draft survives a reload.
    const answer = page.getByLabel('Your answer');
    await answer.fill('half of my answer');
    await page.reload();
    await page.locator('.question-text').waitFor();
    assert.equal(await page.getByLabel('Your answer').inputValue(), 'half of my answer', 'the draft is restored');

    // The model fails: a sentence for the candidate, Retry and the reference; no internals.
    model.fail('interview-evaluation', true);
    await page.getByLabel('Your answer').fill(ANSWER);
    await page.getByLabel('Your answer').press('Control+Enter');
    const failure = page.locator('.alert.failure');
    await failure.waitFor({ timeout: 60000 });
    const failText = await failure.textContent();
    assert.doesNotMatch(failText, /upstream|overloaded|status 500|model output|server_error/i, `no internals: ${failText}`);
    assert.match(await failure.locator('.support-ref code').textContent(), /\S{8,}/, 'the request id for support');
    assert.equal(await page.getByLabel('Your answer').inputValue(), ANSWER, 'the answer is kept');
    await screenshot(page, 'interview-failure');

    // Retry with the model back: the steps of the answer, then the feedback card.
    model.fail('interview-evaluation', false);
    await failure.getByRole('button', { name: 'Try again' }).click();
    await page.locator('.progress-panel .step-current', { hasText: 'Scoring the answer' }).waitFor({ timeout: 15000 });
    assert.match(await page.locator('.progress-panel .progress-title').textContent(), /Evaluating your answer/);
    await page.waitForFunction(() => /[1-9]/.test(document.querySelector('.progress-panel .step-current .step-time')?.textContent || ''), null, { timeout: 10000 });
    await screenshot(page, 'interview-progress');
    const card = page.locator('.feedback-card');
    await card.waitFor({ timeout: 60000 });
    assert.equal(await card.locator('.feedback-title').textContent(), 'Feedback on question 1');
    assert.match(await card.locator('.fb-question').textContent(), /^Question 1: how does topic 1 work/);
    assert.equal(await card.locator('.fb-answer').textContent(), ANSWER);
    assert.match(await card.locator('.score').textContent(), /^\d+$/);
    assert.match(await card.locator('.fb-text').textContent(), /Clear answer/);
    // What was good and what to improve, from the fake's judgments (every
    // dimension and key point met, "an example" missing): an excellent
    // answer has nothing to fix, only ways to go further.
    const POINTS = {
      strengths: ['Covered the key point: core idea 1.', 'Covered the key point: trade-offs.', 'The answer is technically correct.',
        'The answer covers the whole question.', 'The reasoning is well structured.'],
      improvements: ['To go further, also discuss: an example.'],
    };
    const points = async (c) => ({
      good: await c.locator('.fb-strengths h3').textContent(),
      strengths: await c.locator('.fb-strengths li').allTextContents(),
      improve: await c.locator('.fb-improvements h3').textContent(),
      improvements: await c.locator('.fb-improvements li').allTextContents(),
    });
    assert.match(await card.locator('.level').textContent(), /excellent/);
    const WANT_POINTS = { good: 'What was good', improve: 'To go further', ...POINTS };
    assert.deepEqual(await points(card), WANT_POINTS);
    assert.equal(await card.locator('.fb-points li[data-user-content]').count(), 6, 'the items are marked as server text');
    assert.match(await card.locator('.fb-marker').textContent(), /^Next: /);
    assert.ok(await page.locator('.question-card').isHidden(), 'the next question waits');
    assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.classList.contains('feedback-card')), true, 'focus is on the card');
    await screenshot(page, 'interview-feedback', { fullPage: true });

    // The last feedback after a reload, still waiting for "Next question".
    await page.reload();
    await card.waitFor();
    assert.equal(await card.locator('.fb-answer').textContent(), ANSWER, 'the feedback is restored');
    assert.deepEqual(await points(card), WANT_POINTS, 'the lists are restored');
    // A double click on Next goes one step, and its second click does not
    // fall through to the submit button that may now be under the pointer
    // (on a phone it is): Next twice, then submit, at once.
    await card.locator('.next-btn').evaluate((btn) => {
      btn.click();
      btn.click();
      document.querySelector('.question-card button[type="submit"]').click();
    });
    await page.locator('.question-card:not([hidden]) .question-text').waitFor();
    await page.waitForTimeout(300);
    assert.equal(await page.getByText('Write or speak an answer first.').count(), 0, 'no empty answer was sent');
    assert.equal(await page.locator('.question-title').textContent(), 'Question 2');
    assert.match(await page.locator('.feedback-prev summary').textContent(), /previous answer \(1\)/, 'the feedback stays, folded');
    assert.deepEqual(await page.locator('.feedback-prev .fb-strengths li').allTextContents(), POINTS.strengths, 'the folded card keeps its lists');
    // Without the browser's copy (another browser, cleared storage) the server's restore brings it back, folded.
    await page.evaluate((key) => localStorage.removeItem(key), `aimeeting.interview.feedback.${sid}`);
    await page.reload();
    await page.locator('.question-card:not([hidden]) .question-text').waitFor();
    assert.equal(await page.locator('.feedback-prev .fb-answer').textContent(), ANSWER, 'the last feedback from the server');
    assert.deepEqual(await page.locator('.feedback-prev .fb-strengths li').allTextContents(), POINTS.strengths);
    assert.deepEqual(await page.locator('.feedback-prev .fb-improvements li').allTextContents(), POINTS.improvements);
    assert.equal(await page.getByLabel('Your answer').inputValue(), '', 'the sent draft is gone');

    // An answer without evidence: no score, and why.
    await page.getByLabel('Your answer').fill('VAGUE: it depends on many things, I would look into it when needed.');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await card.waitFor({ timeout: 60000 });
    assert.equal(await card.locator('.score').textContent(), 'No score');
    assert.ok((await card.locator('.score-hidden-reason').textContent()).length > 10, 'the reason for no score');
    assert.equal(await card.locator('.fb-points').count(), 0, 'no score: nothing listed as good or to improve');
    await card.locator('.next-btn').click();
    await page.locator('.question-card:not([hidden]) .question-text').waitFor();

    // The live report while the interview runs: marked in progress; Back returns to the interview.
    await page.getByRole('link', { name: 'Report so far' }).click();
    await page.locator('.badge-live').waitFor();
    assert.ok(page.url().endsWith(`#/interview/report/${sid}`));
    assert.equal(await page.locator('.badge-live').textContent(), 'In progress');
    await page.goBack();
    await page.locator('.question-text').waitFor();

    // Finish: the report replaces the session page in the history.
    await page.getByRole('button', { name: 'End interview early' }).click();
    await page.getByRole('button', { name: 'Click again to end now' }).click();
    await page.waitForURL(/#\/interview\/report\//);
    await page.getByRole('heading', { name: /Interview report/ }).waitFor();
    assert.equal(await page.locator('.badge-live').count(), 0, 'the final report is not marked live');
    await page.waitForFunction(() => { const i = document.querySelector('img.radar'); return i && i.complete && i.naturalWidth > 0; }, null, { timeout: 20000 });
    assert.ok(await page.getByRole('button', { name: 'Print / Save as PDF' }).isVisible());

    // The printed report: no header or buttons, the radar and the answer shown.
    await page.emulateMedia({ media: 'print' });
    assert.ok(await page.locator('#topbar').isHidden(), 'no header on paper');
    assert.ok(await page.getByRole('button', { name: 'Print / Save as PDF' }).isHidden(), 'no buttons on paper');
    assert.ok(await page.locator('img.radar').isVisible(), 'the radar on paper');
    assert.ok(await page.locator('.playback-item .print-only .answer').first().isVisible(), 'the answers on paper');
    const dir = mkdtempSync(path.join(tmpdir(), 'aimeeting-pdf-'));
    try {
      const pdf = path.join(dir, 'report.pdf');
      writeFileSync(pdf, await page.pdf({ format: 'A4', printBackground: true }));
      execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', pdf, path.join(dir, 'page')]);
      copyFileSync(path.join(dir, 'page-1.png'), path.join(screenshotDir, 'report-print.png'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await page.emulateMedia({ media: 'screen' });

    // Back from the report leaves it (no redirect to the report again).
    await page.goBack();
    await page.waitForURL((u) => !/#\/interview\/report\//.test(u.toString()));
    await page.waitForTimeout(500);
    assert.doesNotMatch(page.url(), /#\/interview\/(report|s)\//, `Back left the report: ${page.url()}`);
    assertNoPageErrors(browser.errors);
  } catch (e) {
    await failureShot(page, 'ux-slow');
    throw e;
  } finally {
    await browser.close();
  }
});

test('phone: the question and its answer box on the first screen; the feedback card in view and focused', { timeout: 120000 }, async () => {
  const browser = await launchBrowser({ viewport: { width: 390, height: 844 } });
  const { page } = browser;
  const { base } = offline;
  try {
    const H = await loginAs(page, base, 'phone');
    const sid = await readySession(base, H);
    await page.goto(`${base}/#/interview/s/${sid}`);
    await page.getByRole('button', { name: 'Begin the interview' }).click();
    await page.locator('.question-text').waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    const fits = await page.evaluate(() => {
      const q = document.querySelector('.question-text').getBoundingClientRect();
      const a = document.querySelector('textarea[name="answerContent"]').getBoundingClientRect();
      return { q: q.top, a: a.bottom, h: window.innerHeight };
    });
    assert.ok(fits.q >= 0 && fits.a <= fits.h, `question and answer box on the first screen: ${JSON.stringify(fits)}`);
    await page.getByLabel('Your answer').fill(ANSWER);
    await screenshot(page, 'interview-question-phone');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    const card = page.locator('.feedback-card');
    await card.waitFor({ timeout: 60000 });
    await page.waitForTimeout(300);
    const view = await page.evaluate(() => {
      const c = document.querySelector('.feedback-card');
      const r = c.getBoundingClientRect();
      const bar = document.getElementById('topbar').getBoundingClientRect().bottom;
      return { top: r.top, bar, h: window.innerHeight, focused: document.activeElement === c };
    });
    assert.ok(view.top >= view.bar && view.top < view.h / 2, `the card is in view below the header: ${JSON.stringify(view)}`);
    assert.equal(view.focused, true, 'the card has the focus');
    await page.screenshot({ path: path.join(screenshotDir, 'interview-feedback-phone.png') });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no horizontal scrolling (${overflow}px)`);
    await card.locator('.next-btn').click();
    await page.locator('.question-card:not([hidden]) .question-text').waitFor();
    assertNoPageErrors(browser.errors);
  } catch (e) {
    await failureShot(page, 'ux-phone');
    throw e;
  } finally {
    await browser.close();
  }
});

test('a report without answers: no Potential, no "0 min", the reason shown', { timeout: 120000 }, async () => {
  const browser = await launchBrowser();
  const { page } = browser;
  const { base } = offline;
  try {
    const H = await loginAs(page, base, 'empty');
    const sid = await readySession(base, H);
    await page.goto(`${base}/#/interview/s/${sid}`);
    await page.getByRole('button', { name: 'Begin the interview' }).click();
    await page.locator('.question-text').waitFor();
    await page.getByRole('button', { name: 'End interview early' }).click();
    await page.getByRole('button', { name: 'Click again to end now' }).click();
    await page.waitForURL(/#\/interview\/report\//);
    await page.getByRole('heading', { name: /Interview report/ }).waitFor();
    const labels = await page.locator('.tile-label').allTextContents();
    assert.ok(!labels.includes('Potential'), `no Potential tile: ${labels}`);
    const meta = await page.locator('.report-meta').textContent();
    assert.match(meta, /0 answers/);
    assert.doesNotMatch(meta, /\bmin\b/, `no minutes: ${meta}`);
    assert.ok((await page.locator('.report-not-assessed').textContent()).length > 10, 'the reason is shown');
    assert.equal(await page.locator('.playback').count(), 0);
    assert.match(await page.locator('.card').last().textContent(), /No answers were given/);
    await screenshot(page, 'report-empty', { fullPage: true });
    assertNoPageErrors(browser.errors);
  } catch (e) {
    await failureShot(page, 'ux-empty');
    throw e;
  } finally {
    await browser.close();
  }
});

/** A minimal Word .docx holding text (one paragraph per line), built with python3's zipfile. */
function docx(text) {
  const paras = text.split('\n').filter(Boolean).map((p) => `<w:p><w:r><w:t xml:space="preserve">${p.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</w:t></w:r></w:p>`).join('');
  const py = `
import io, sys, zipfile
b = io.BytesIO()
z = zipfile.ZipFile(b, 'w')
z.writestr('[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
z.writestr('_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>')
z.writestr('word/document.xml', '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' + sys.stdin.read() + '</w:body></w:document>')
z.close()
sys.stdout.buffer.write(b.getvalue())
`;
  return execFileSync('python3', ['-c', py], { input: paras });
}

test('a Word resume is described as Word on the ready screen, in both languages', { timeout: 120000 }, async () => {
  const browser = await launchBrowser();
  const { page } = browser;
  const { base } = offline;
  try {
    const H = await loginAs(page, base, 'word');
    const sid = (await (await fetch(`${base}${API}/interview/sessions`, { method: 'POST', headers: H })).json()).data.sessionId;
    const fd = new FormData();
    fd.append('resumePdf', new Blob([docx(RESUME)], { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }), 'resume.docx');
    const r = await fetch(`${base}${API}/interview/sessions/${sid}/interview-questions`, { method: 'POST', headers: H, body: fd });
    const up = await r.json();
    assert.equal(r.status, 200, JSON.stringify(up));
    assert.equal(up.data.read.kind, 'docx');
    await page.goto(`${base}/#/interview/s/${sid}`);
    const read = page.locator('.read-summary .read-text');
    await read.waitFor();
    assert.match(await read.textContent(), /^Read [\d,]+ characters \(Word\)$/);
    await page.locator('#lang-switch [data-lang="zh-CN"]').click();
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    await page.locator('.read-summary .read-text', { hasText: 'Word 文档' }).waitFor();
    assert.doesNotMatch(await page.locator('.read-summary .read-text').textContent(), /纯文本/);
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
