// How the page handles API errors: a stale question (409, real server) jumps
// to the current question; "still evaluating" (202) is re-sent with the same
// requestId; 429 waits for Retry-After and retries; 503 shows the envelope
// message. 202/429/503 are injected in front of the real server with
// page.route, since the offline model never produces them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, apiRegister } from './helpers.js';

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

const API = '/api/xunzhi/v1';

/** A user with an interview at question 1, logged in in the page. */
async function interviewAtQuestion1(page) {
  const { base } = server;
  const token = await apiRegister(base, `err${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`, 'secret-pass-1');
  const H = { Authorization: `Bearer ${token}` };
  const sid = (await (await fetch(`${base}${API}/interview/sessions`, { method: 'POST', headers: H })).json()).data.sessionId;
  const fd = new FormData();
  fd.append('resumePdf', new Blob(['Jane Doe, backend engineer. Go, MySQL, Redis.\nFive years in a product team: owned features from design to release, wrote tests and runbooks, and mentored two junior engineers (doctext.min-chars is 200).\n'], { type: 'text/plain' }), 'resume.txt');
  assert.equal((await fetch(`${base}${API}/interview/sessions/${sid}/interview-questions`, { method: 'POST', headers: H, body: fd })).status, 200);
  await page.goto(`${base}/#/login`);
  await page.evaluate((tok) => {
    localStorage.setItem('aimeeting.token', tok);
    localStorage.removeItem('aimeeting.user');
  }, token);
  await page.goto(`${base}/#/interview/s/${sid}`);
  // A READY session opens on the ready screen; Begin starts the interview.
  await page.getByRole('button', { name: 'Begin the interview' }).click();
  await page.locator('.question-text').waitFor();
  return { sid, H };
}

test('409: answering a question that moved on jumps to the current question', { timeout: 60000 }, async () => {
  const { page } = browser;
  const { sid, H } = await interviewAtQuestion1(page);
  assert.equal(await page.locator('.question-title').textContent(), 'Question 1');
  // Another tab answers question 1 first.
  const r = await fetch(`${server.base}${API}/interview/sessions/${sid}/interview/answer-json`, {
    method: 'POST', headers: { ...H, 'Content-Type': 'application/json' },
    body: JSON.stringify({ questionNumber: '1', answerContent: 'An index is a B-tree on the column; lookups avoid a full scan; writes get slower.' }),
  });
  assert.equal(r.status, 200);
  const next = (await r.json()).data;
  await page.getByLabel('Your answer').fill('my late answer to question one');
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await page.locator('.alert-info').waitFor();
  assert.match(await page.locator('.alert-info').textContent(), /not the current question.*Showing the current question/);
  assert.equal(await page.locator('.question-text').textContent(), next.nextQuestion);
  assert.equal(await page.getByLabel('Your answer').inputValue(), 'my late answer to question one', 'the typed text is kept');
});

test('202 still evaluating: the same request is re-sent automatically', { timeout: 60000 }, async () => {
  const { page } = browser;
  await interviewAtQuestion1(page);
  const bodies = [];
  await page.route('**/interview/answer-json', async (route) => {
    bodies.push(route.request().postDataJSON());
    if (bodies.length === 1) {
      await route.fulfill({ status: 202, contentType: 'application/json',
        body: JSON.stringify({ code: '0', message: 'success', requestId: 'x', data: { status: 'evaluating', questionNumber: '1' } }) });
    } else {
      await route.continue();
    }
  });
  await page.getByLabel('Your answer').fill('An index is a sorted B-tree; lookups avoid a full table scan.');
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await page.locator('.status-line', { hasText: 'Still evaluating' }).waitFor();
  await page.locator('.feedback-card').waitFor({ timeout: 30000 });
  await page.unroute('**/interview/answer-json');
  assert.equal(bodies.length, 2);
  assert.deepEqual(bodies[1], bodies[0], 'the re-sent request is identical (same requestId)');
  assert.ok(bodies[0].requestId && bodies[0].requestId.length <= 64);
});

test('429 shows the rate limit and retries after Retry-After; 503 shows the model is unavailable', { timeout: 60000 }, async () => {
  const { page } = browser;
  await interviewAtQuestion1(page);
  let calls = 0;
  await page.route('**/interview/answer-json', async (route) => {
    calls += 1;
    if (calls === 1) {
      await route.fulfill({ status: 429, contentType: 'application/json', headers: { 'Retry-After': '1' },
        body: JSON.stringify({ code: 'A000300', message: 'too many requests', requestId: 'r1', data: null }) });
    } else if (calls === 2) {
      await route.fulfill({ status: 503, contentType: 'application/json',
        body: JSON.stringify({ code: 'B000417', message: 'the AI service is busy or unreachable right now; please try again in a minute', requestId: 'r2', data: null }) });
    } else {
      await route.continue();
    }
  });
  await page.getByLabel('Your answer').fill('An index is a sorted B-tree; lookups avoid a full table scan.');
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await page.locator('.alert-error', { hasText: /Rate limited.*1 s/ }).waitFor();
  // The server's sentence for the candidate, the reference for support and Retry.
  const failure = page.locator('.alert-error.failure', { hasText: /^The AI service is busy or unreachable right now; please try again in a minute\./ });
  await failure.waitFor({ timeout: 10000 });
  assert.equal(await failure.locator('.support-ref code').textContent(), 'r2');
  assert.equal(calls, 2);
  // The user retries: the real server answers.
  await failure.getByRole('button', { name: 'Try again' }).click();
  await page.locator('.feedback-card').waitFor({ timeout: 30000 });
  assert.equal(await page.locator('.alert-error').count(), 0, 'the error is cleared');
  await page.unroute('**/interview/answer-json');
});
