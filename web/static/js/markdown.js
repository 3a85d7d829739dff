// Model answers as Markdown, safely: marked turns the text into HTML, raw
// HTML in the text is shown as text (a model explaining <script> shows the
// tag, it does not run it), and DOMPurify sanitises the result before it
// touches the page. Both libraries are vendored (web/static/vendor, see
// scripts/vendor-web.sh): the page loads nothing from elsewhere.

import { Marked } from '../vendor/marked.esm.js';
import DOMPurify from '../vendor/purify.es.js';
import { t } from './i18n.js';
import { h } from './ui.js';

const escapeHTML = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

const md = new Marked({ gfm: true, breaks: true, async: false });
md.use({
  renderer: {
    // Raw HTML blocks and inline tags: their text, escaped.
    html(token) { return escapeHTML(token.text ?? token.raw ?? ''); },
    // Images are not loaded (a model answer must not make the page fetch
    // anything): the alt text and the address as a link.
    image(token) { return `<a href="${escapeHTML(token.href || '')}">${escapeHTML(token.text || token.href || '')}</a>`; },
  },
});

// Belt and braces after the escaping above: no active content survives.
const PURIFY = {
  FORBID_TAGS: ['style', 'img', 'svg', 'math', 'iframe', 'object', 'embed', 'form', 'input', 'button', 'textarea', 'select', 'video', 'audio', 'source', 'picture'],
  FORBID_ATTR: ['style', 'srcset'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  RETURN_DOM_FRAGMENT: true,
};

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  // Links open elsewhere and tell the target nothing of this page.
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

/** Copies text to the clipboard (the Clipboard API, else a hidden textarea). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h('textarea.sr-only', { readonly: true, 'aria-hidden': 'true' });
    area.value = text;
    document.body.append(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    area.remove();
    return ok;
  }
}

/** A small "Copy" button that copies what text() returns and says so. */
export function copyButton(text, label = t('chat.copy'), extraClass = '') {
  const b = h(`button.btn.btn-small.copy-btn${extraClass}`, { type: 'button' }, label);
  b.addEventListener('click', async () => {
    const ok = await copyText(text());
    b.textContent = ok ? t('chat.copied') : t('chat.copyFailed');
    b.classList.toggle('copied', ok);
    setTimeout(() => { b.textContent = label; b.classList.remove('copied'); }, 1800);
  });
  return b;
}

/**
 * Renders Markdown text into el (its children are replaced): tables
 * scroll sideways when wide, code blocks get a copy button.
 */
export function renderMarkdown(el, text) {
  const html = md.parse(String(text || '')).trim();
  const frag = DOMPurify.sanitize(html, PURIFY);
  for (const table of frag.querySelectorAll('table')) {
    const wrap = h('div.md-table');
    table.replaceWith(wrap);
    wrap.append(table);
  }
  for (const pre of frag.querySelectorAll('pre')) {
    const code = pre.querySelector('code') || pre;
    const lang = (/language-([\w+-]+)/.exec(code.className || '') || [])[1] || '';
    const box = h('div.code-block');
    pre.replaceWith(box);
    box.append(h('div.code-head', h('span.code-lang', { translate: 'no' }, lang), copyButton(() => code.textContent, t('chat.copyCode'))), pre);
  }
  el.replaceChildren(frag);
}
