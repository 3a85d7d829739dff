// The message catalog (issue 17): every view's messages exist in English and
// Simplified Chinese with the same keys; English has no Chinese, Chinese has
// no English words but technical terms; views hold no English sentences of
// their own (their strings come from the catalog).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './helpers.js';
import { ZH_ALLOWED, latinWords } from './i18n-check.js';

const js = path.join(repoRoot, 'web', 'static', 'js');

// i18n.js sets <html lang> and remembers the locale: the least of a page for node.
globalThis.document ??= { documentElement: {} };
if (typeof globalThis.localStorage === 'undefined' || !globalThis.localStorage?.setItem) {
  const m = new Map();
  globalThis.localStorage = { getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)) };
}

async function catalog() {
  const i18n = await import(pathToFileURL(path.join(js, 'i18n.js')));
  for (const f of readdirSync(path.join(js, 'i18n')).filter((n) => n.endsWith('.js'))) {
    await import(pathToFileURL(path.join(js, 'i18n', f)));
  }
  return i18n;
}

test('en and zh-CN have the same keys, none empty', async () => {
  const i18n = await catalog();
  const en = i18n.keys('en').sort();
  const zh = i18n.keys('zh-CN').sort();
  assert.ok(en.length > 200, `the catalog has ${en.length} keys`);
  assert.deepEqual(en.filter((k) => !zh.includes(k)), [], 'keys only in English');
  assert.deepEqual(zh.filter((k) => !en.includes(k)), [], 'keys only in Chinese');
});

test('English messages have no Chinese; Chinese messages no English words but technical terms', async () => {
  const i18n = await catalog();
  const params = { n: 2, total: 5, qn: '1', msg: '', name: '', key: '', p: 1, s: 1, ref: '', status: '', segs: '', time: '', score: 1, direction: '', type: '', c: '', what: '', file: '', done: 1, langs: '', choose: '', pages: '', ocr: '', answers: 1, minutes: 1, code: '', id: '', page: '', zh: '', latin: '', provider: '', ms: 1 };
  const exceptions = new Set(['sp.lang.zh-CN']); // a language's own name is not a translation
  const problems = [];
  for (const loc of ['en', 'zh-CN']) {
    i18n.setLocale(loc, { remember: false });
    for (const k of i18n.keys(loc)) {
      if (exceptions.has(k) && loc === 'en') continue;
      const text = i18n.t(k, params);
      assert.ok(text && text.trim(), `${loc} ${k} is empty`);
      if (loc === 'en' && /\p{Script=Han}/u.test(text)) problems.push(`${loc} ${k}: ${text}`);
      if (loc === 'zh-CN') {
        const bad = latinWords(text).filter((w) => !ZH_ALLOWED.has(w.toLowerCase()));
        if (bad.length) problems.push(`${loc} ${k}: ${bad.join(', ')} in ${text}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('views have no English sentences of their own', () => {
  const views = ['app.js', 'ui.js', 'api.js', 'chat.js', 'interview.js', 'admin.js', 'tts.js', 'speech.js', 'airouting.js', 'markdown.js'];
  const sentence = /(['`])([A-Z][a-z]+(?: [a-z]+)+[.…!?]?)\1/g;
  const found = [];
  for (const v of views) {
    const src = readFileSync(path.join(js, v), 'utf8').split('\n').filter((l) => !/^\s*(\/\/|\*|\/\*\*)/.test(l)).join('\n');
    for (const m of src.matchAll(sentence)) found.push(`${v}: ${m[2]}`);
  }
  assert.deepEqual(found, []);
});
