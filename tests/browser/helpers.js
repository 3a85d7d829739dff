// Shared helpers of the browser tests: the real server built from this repo,
// Debian's chromium driven by playwright-core, screenshots.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');
export const screenshotDir = path.join(repoRoot, 'docs', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

let builtBinary = null;

/** The server binary: $AIMEETING_BIN (scripts/browser-test.sh builds it) or a fresh go build. */
export function serverBinary() {
  if (process.env.AIMEETING_BIN) return process.env.AIMEETING_BIN;
  if (builtBinary) return builtBinary;
  const dir = mkdtempSync(path.join(tmpdir(), 'aimeeting-bin-'));
  builtBinary = path.join(dir, 'aimeeting');
  execFileSync('go', ['build', '-o', builtBinary, './cmd/server'], { cwd: repoRoot, stdio: 'inherit' });
  return builtBinary;
}

/**
 * With BROWSER_REDIS_ADDRS set (scripts/browser-test.sh --redis), servers
 * use that Redis under a prefix of their own: the token, current-question
 * and replay copies, the progress and the single-flight then run as in a
 * cluster.
 */
function redisEnv() {
  if (!process.env.BROWSER_REDIS_ADDRS) return {};
  return { REDIS_ADDRS: process.env.BROWSER_REDIS_ADDRS, REDIS_KEY_PREFIX: `browser-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}:` };
}

/**
 * Starts the server in a fresh temp dir on the embedded defaults (SQLite,
 * offline model) with SERVER_PORT=0; resolves {base, stop, dir, logs()}.
 */
export async function startServer(extraEnv = {}) {
  const bin = serverBinary();
  const dir = mkdtempSync(path.join(tmpdir(), 'aimeeting-srv-'));
  // A clean environment: nothing of the developer's AI keys or config leaks in.
  const env = { PATH: process.env.PATH, HOME: dir, SERVER_PORT: '0', SERVER_HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...redisEnv(), ...extraEnv };
  const proc = spawn(bin, [], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr.on('data', (d) => { err += d; });
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 60 s\n${out}\n${err}`)), 60000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on http:\/\/\S*?:(\d+)/);
      if (m) { clearTimeout(timer); resolve(`http://127.0.0.1:${m[1]}`); }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}\n${out}\n${err}`)); });
  });
  return {
    base,
    dir,
    logs: () => err,
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10000))]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Launches chromium with a fresh profile; resolves {context, page, close}.
 * locale is the browser's language (navigator.languages): English unless
 * a test asks for another, so that tests reading English texts get them.
 */
export async function launchBrowser({ extraArgs = [], viewport = { width: 1280, height: 860 }, locale = 'en-US' } = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/browser-deps.sh`);
  const profile = mkdtempSync(path.join(tmpdir(), 'aimeeting-chromium-'));
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--autoplay-policy=no-user-gesture-required', ...extraArgs];
  // launchPersistentContext passes the fresh profile as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: [...args, `--lang=${locale}`], viewport, locale, timeout: 60000,
  });
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return {
    context,
    page,
    errors,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page, name, opts = {}) {
  mkdirSync(screenshotDir, { recursive: true });
  // Transient toasts would cover the page.
  await page.evaluate(() => { const t = document.getElementById('toasts'); if (t) t.replaceChildren(); window.scrollTo(0, 0); });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), ...opts });
}

let userSeq = 0;
/** Registers a fresh user through the page and ends logged in. */
export async function registerAndLogin(page, base, name) {
  userSeq += 1;
  const username = name || `cand${Date.now().toString(36)}${userSeq}`;
  const password = 'secret-pass-1';
  await page.goto(`${base}/#/register`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/#\/interview/);
  await page.getByRole('button', { name: 'Log out' }).waitFor();
  return { username, password };
}

/** Registers through the API (fast path for tests that need a token). */
export async function apiRegister(base, username, password) {
  const post = (p, body) => fetch(`${base}/api/xunzhi/v1${p}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
  await post('/users/register', { username, password });
  const r = await post('/users/login', { username, password });
  return r.data.token;
}
