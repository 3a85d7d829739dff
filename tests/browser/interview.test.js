// register → login → a whole interview on the offline model (TXT resume via
// setInputFiles, every question answered, a demeanor snapshot from the fake
// camera, resume after reload, finish) → the report with its radar chart.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, screenshot } from './helpers.js';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser({
    extraArgs: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'],
  });
});

after(async () => {
  if (browser) {
    if (browser.errors.length) console.log('page errors:', browser.errors);
    await browser.close();
  }
  if (server) await server.stop();
});

const RESUME = `Jane Doe — backend engineer
Skills: Go, MySQL, Redis, Kafka, Docker, Kubernetes.
Built an order service at 3000 QPS with Go and MySQL; cut p99 latency by 40% with Redis caching.
Designed a Kafka pipeline for payment events with exactly-once processing.
`;

function answerFor(question) {
  return `Regarding "${question.slice(0, 60)}": I would start from the requirements, then explain the design. `
    + 'For example, an index in MySQL is a B+ tree on the column, so lookups avoid a full table scan, '
    + 'range queries stay ordered, and the trade-off is slower writes and more storage. '
    + 'In my order service I measured p99 latency, added a Redis cache with expiry and invalidation on writes, '
    + 'and verified the result with load tests at 3000 QPS. The key risks are consistency, cache stampede and hot keys, '
    + 'which I handled with single-flight loading and jittered expiry.';
}

test('register, log in, take a whole interview and see the report with the radar chart', { timeout: 240000 }, async () => {
  try {
    await wholeInterview();
  } catch (e) {
    await browser.page.screenshot({ path: `${process.env.TMPDIR || '/tmp'}/aimeeting-interview-failure.png`, fullPage: true }).catch((err) => console.log("screenshot failed", err));
    throw e;
  }
});

async function wholeInterview() {
  const { page } = browser;
  const { base } = server;

  // Login page first (screenshot), then register.
  await page.goto(`${base}/`);
  await page.waitForURL(/#\/login/);
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  await screenshot(page, 'login');

  const username = `cand${Date.now().toString(36)}`;
  const password = 'secret-pass-1';
  await page.getByRole('link', { name: 'Register' }).click();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/#\/interview/);
  await page.getByRole('button', { name: 'Log out' }).waitFor();

  // Log out and in again through the login form.
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(/#\/login/);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/#\/interview/);
  assert.equal(await page.evaluate(() => !!localStorage.getItem('aimeeting.token')), true);

  // Start, upload the resume.
  await page.getByRole('button', { name: 'Start a new interview' }).click();
  await page.getByRole('heading', { name: 'Upload your resume' }).waitFor();
  await page.getByLabel(/Resume \(PDF, TXT or MD/).setInputFiles({ name: 'resume.txt', mimeType: 'text/plain', buffer: Buffer.from(RESUME) });
  await page.getByRole('button', { name: 'Upload and prepare questions' }).click();
  await page.getByRole('heading', { name: /Your interview is ready/ }).waitFor({ timeout: 60000 });
  assert.ok(await page.locator('.summary .badge-offline').isVisible(), 'the offline model is labelled');
  await page.getByRole('button', { name: 'Begin the interview' }).click();

  const progress = page.locator('.progress-text');
  await progress.waitFor();
  const first = await progress.textContent();
  const m = first.match(/^Question 1 of (\d+)$/);
  assert.ok(m, `progress shows "Question 1 of N", got ${first}`);
  const total = Number(m[1]);
  assert.ok(total >= 5 && total <= 8, `5-8 questions, got ${total}`);
  await page.locator('#offline-badge').waitFor({ state: 'visible' });

  // Demeanor: the offline model cannot see images, so the camera is not
  // offered; one sentence says why (no "Not assessed — demeanor not assessed").
  await page.locator('.camera .demeanor-off').waitFor({ timeout: 20000 });
  const demeanorNote = await page.locator('.camera .demeanor-off').textContent();
  assert.match(demeanorNote, /^Demeanor is not assessed because the AI model in use cannot see images\.$/);
  assert.equal(await page.getByRole('button', { name: 'Turn on camera' }).count(), 0, 'no camera without a vision model');

  await page.getByLabel('Your answer').fill(answerFor(await page.locator('.question-text').textContent()));
  await screenshot(page, 'interview-question', { fullPage: true });

  let answered = 0;
  let followUps = 0;
  let reloaded = false;
  const seen = new Set();
  for (let guard = 0; guard < 40; guard++) {
    const finishVisible = await page.locator('.finish-card').isVisible();
    if (finishVisible) break;
    const qTitle = await page.locator('.question-title').textContent();
    const qText = await page.locator('.question-text').textContent();
    const prog = await progress.textContent();
    assert.match(prog, new RegExp(`^Question \\d+ of ${total}$`));
    const isFollow = await page.locator('.badge-followup').first().isVisible();
    if (isFollow) {
      followUps += 1;
      assert.match(qTitle, /Follow-up/);
    }
    assert.ok(!seen.has(qTitle), `question ${qTitle} asked twice`);
    seen.add(qTitle);
    const answer = page.getByLabel('Your answer');
    if (!(await answer.inputValue())) await answer.fill(answerFor(qText));
    await page.getByRole('button', { name: 'Submit answer' }).click();
    // The feedback on this answer, with its question, until "Next question".
    await page.locator('.feedback-card').waitFor({ timeout: 60000 });
    answered += 1;
    assert.match(await page.locator('.feedback-card .score').textContent(), /^\d+$/);
    assert.equal(await page.locator('.feedback-card .fb-question').textContent(), qText, 'the card names the question answered');
    // What was good and what to improve: at least one list, each with its heading and items.
    const lists = await page.locator('.feedback-card .fb-points').evaluateAll((els) => els.map((e) => ({
      heading: e.querySelector('h3').textContent, items: [...e.querySelectorAll('li')].map((li) => li.textContent),
    })));
    assert.ok(lists.length >= 1, 'the card lists what was good or what to improve');
    for (const l of lists) {
      assert.match(l.heading, /^(What was good|What to improve|To go further)$/);
      assert.ok(l.items.length >= 1 && l.items.every((x) => /\S.*[.]$/.test(x)), `list items: ${JSON.stringify(l)}`);
    }
    assert.ok(await page.locator('.question-card').isHidden(), 'the next question waits for the candidate');
    await page.locator('.feedback-card .next-btn').click();
    await page.waitForFunction((prev) => {
      const fin = document.querySelector('.finish-card');
      const t = document.querySelector('.question-title');
      return (fin && !fin.hidden) || (t && t.textContent !== prev && !t.closest('[hidden]'));
    }, qTitle, { timeout: 10000 });

    // After the first answer: reload, go to the interview home, resume.
    if (!reloaded) {
      reloaded = true;
      const before = await page.locator('.question-title').textContent();
      await page.goto(`${base}/#/interview`);
      await page.reload();
      await page.getByRole('button', { name: 'Resume it' }).click();
      await page.locator('.question-title').waitFor();
      assert.equal(await page.locator('.question-title').textContent(), before, 'resumes at the same question');
    }
  }
  assert.ok(answered >= total, `answered ${answered} of ${total} (plus ${followUps} follow-ups)`);

  await page.getByRole('button', { name: 'Finish and see the report' }).click();
  await page.waitForURL(/#\/interview\/report\//);
  await page.getByRole('heading', { name: /Interview report/ }).waitFor();

  // The radar chart: an <img> fed from a blob: URL of the SVG fetched with the token.
  const radar = page.locator('img.radar');
  await radar.waitFor();
  await page.waitForFunction(() => {
    const img = document.querySelector('img.radar');
    return img && img.complete && img.naturalWidth > 0 && img.src.startsWith('blob:');
  }, null, { timeout: 20000 });
  const box = await radar.boundingBox();
  assert.ok(box && box.width > 100 && box.height > 100, `radar rendered with size ${JSON.stringify(box)}`);

  const tiles = await page.locator('.tile-value').allTextContents();
  assert.match(tiles[0], /^\d+$/, 'interview score tile');
  assert.equal(await page.locator('.playback-item').count(), answered, 'one playback item per answer');
  assert.ok(await page.locator('.playback-item .fb-points li').count() >= answered, 'the playback lists what was good and what to improve');
  assert.ok((await page.locator('.overall').textContent()).length > 10, 'overall comment');
  await screenshot(page, 'report', { fullPage: true });

  // No question page is left to resume; the report is listed on the home page.
  await page.goto(`${base}/#/interview`);
  await page.getByRole('heading', { name: 'Your reports' }).waitFor();
  await page.locator('.records a').first().waitFor();
  assert.equal(await page.getByRole('button', { name: 'Resume it' }).count(), 0);
  assert.deepEqual(browser.errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no script errors');
}
