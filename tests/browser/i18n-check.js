// The DOM check of the bilingual pages (issue 17), shared by the tests.

/** Latin words a Chinese page may show: technical terms, file formats, keys. */
export const ZH_ALLOWED = new Set(['ai', 'api', 'url', 'pdf', 'txt', 'md', 'jpeg', 'png', 'webp', 'mb', 'ocr', 'redis',
  'sse', 'json', 'http', 'https', 'ctrl', 'enter', 'token', 'wav', 'mp3', 'docx', 'iot', 'javascript',
  // Microsoft Word, the name Chinese users give a .docx ("Word 文档")
  'word',
  // the provider types the default model is named after ("默认（openai）")
  'openai', 'ollama']);

/** The Latin words of text (the product name AI-Meeting left out). */
export function latinWords(text) {
  return String(text).replace(/AI-Meeting/g, '').match(/\p{Script=Latin}[\p{Script=Latin}\d]*/gu) || [];
}

/**
 * Runs in the page: every text node and visible attribute (aria-label,
 * title, placeholder, alt) outside user content ([data-user-content]),
 * technical identifiers ([translate="no"]) and text in another language
 * ([lang] other than the page's), with the catalog's keys; returns the
 * problems found for locale.
 */
export async function domProblems(page, locale) {
  return page.evaluate(async ({ loc, allowed }) => {
    const i18n = await import('/assets/js/i18n.js');
    const keys = new Set([...i18n.keys('en'), ...i18n.keys('zh-CN')]);
    const allow = new Set(allowed);
    const problems = [];
    if (document.documentElement.lang !== loc) problems.push(`<html lang="${document.documentElement.lang}">, want ${loc}`);
    const excluded = (el) => {
      for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
        if (e.hasAttribute('data-user-content') || e.getAttribute('translate') === 'no') return true;
        if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEXTAREA'].includes(e.tagName)) return true;
        const l = e.getAttribute('lang');
        if (l && l !== loc) return true;
      }
      return false;
    };
    const check = (text, where) => {
      const s = text.trim();
      if (!s) return;
      if (keys.has(s) || /^[a-z][a-zA-Z0-9]*(?:\.[a-zA-Z0-9-]+)+$/.test(s)) problems.push(`untranslated key "${s}" in ${where}`);
      if (loc === 'en' && /\p{Script=Han}/u.test(s)) problems.push(`Chinese in English page: "${s}" in ${where}`);
      if (loc === 'zh-CN') {
        const words = (s.replace(/AI-Meeting/g, '').match(/\p{Script=Latin}[\p{Script=Latin}\d]*/gu) || []).filter((w) => !allow.has(w.toLowerCase()));
        if (words.length) problems.push(`English words ${JSON.stringify(words)} in Chinese page: "${s}" in ${where}`);
      }
    };
    const describe = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''}`;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!excluded(n.parentElement)) check(n.nodeValue, describe(n.parentElement));
    }
    for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
      if (excluded(el)) continue;
      for (const a of ['aria-label', 'title', 'placeholder', 'alt']) {
        if (el.hasAttribute(a)) check(el.getAttribute(a), `${describe(el)}[${a}]`);
      }
    }
    check(document.title, 'title');
    return problems;
  }, { loc: locale, allowed: [...ZH_ALLOWED] });
}
