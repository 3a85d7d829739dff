// The Go server's side of the frontend: the page and assets with their
// security and caching headers, API routes and the JSON 404 left alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './helpers.js';

let server;
before(async () => { server = await startServer(); });
after(async () => { if (server) await server.stop(); });

test('index.html is served at / with the security headers', async () => {
  const r = await fetch(`${server.base}/`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^text\/html/);
  const csp = r.headers.get('content-security-policy');
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self'(;|$)/, 'scripts only from this origin, no inline');
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(r.headers.get('x-frame-options'), 'DENY');
  assert.ok(r.headers.get('referrer-policy'));
  assert.equal(r.headers.get('cache-control'), 'no-cache');
  const html = await r.text();
  assert.match(html, /<script type="module" src="\/assets\/js\/app\.js"><\/script>/);
  assert.doesNotMatch(html.replace(/<script[^>]*src=[^>]*><\/script>/g, ''), /<script/i, 'no inline script');
  assert.doesNotMatch(html, / on[a-z]+=/i, 'no inline event handlers');
});

test('assets have their types, an ETag and revalidation', async () => {
  const r = await fetch(`${server.base}/assets/js/app.js`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^text\/javascript/);
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  const etag = r.headers.get('etag');
  assert.ok(etag);
  assert.match(r.headers.get('cache-control'), /must-revalidate/);
  const again = await fetch(`${server.base}/assets/js/app.js`, { headers: { 'If-None-Match': etag } });
  assert.equal(again.status, 304);
  const css = await fetch(`${server.base}/assets/css/app.css`);
  assert.match(css.headers.get('content-type'), /^text\/css/);
  const worklet = await fetch(`${server.base}/assets/js/pcm-worklet.js`);
  assert.equal(worklet.status, 200);
  const missing = await fetch(`${server.base}/assets/js/nope.js`);
  assert.equal(missing.status, 404);
  const traversal = await fetch(`${server.base}/assets/..%2f..%2fembed.go`);
  assert.equal(traversal.status, 404);
});

test('API paths keep the JSON envelope, also for a 404', async () => {
  const r = await fetch(`${server.base}/api/xunzhi/v1/no-such-route`);
  assert.equal(r.status, 404);
  assert.match(r.headers.get('content-type'), /application\/json/);
  const env = await r.json();
  assert.notEqual(env.code, '0');
  assert.ok(env.requestId);
  const me = await fetch(`${server.base}/api/xunzhi/v1/users/me`);
  assert.equal(me.status, 401);
  assert.equal((await me.json()).code.length > 0, true);
  const health = await fetch(`${server.base}/healthz`);
  assert.equal(health.status, 200);
});
