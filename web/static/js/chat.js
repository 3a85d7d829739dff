// AI chat and agent chat: conversation list, history, streaming answers.

import { api, call, describeError, noteOffline, openStream, sseEvents } from './api.js';
import { filesPanel } from './agentfiles.js';
import { has, t } from './i18n.js';
import './i18n/admin.js';
import './i18n/chat.js';
import { copyButton, renderMarkdown } from './markdown.js';
import { alertBox, busy, clear, field, fmtTime, h, offlineBadge, toast } from './ui.js';

/** The sentence of an answer that ended early (stopReason user, timeout, idle, shutdown). */
function stopText(reason) {
  return t(['user', 'timeout', 'idle', 'shutdown'].includes(reason) ? `chat.stop.${reason}` : 'chat.stop.other');
}

/**
 * Renders one message bubble. An AI answer is Markdown (rendered safely,
 * see markdown.js) with a copy button; a user message is plain text.
 * Returns {el, raw(), addContent, addReasoning, setOffline, stopped, fail, stall, finish, actions}.
 */
function bubble(role, { content = '', reasoning = '', offline = false, error = '', stopReason = '', streaming = false } = {}) {
  const ai = role === 'ai';
  let raw = content;
  const contentEl = h(ai ? 'div.msg-content.md' : 'div.msg-content', { 'data-user-content': '' });
  const reasoningBody = h('div.msg-reasoning-body', { 'data-user-content': '' }, reasoning);
  const reasoningEl = h('details.msg-reasoning', { hidden: !reasoning, open: true },
    h('summary', t('chat.reasoning')), reasoningBody);
  const meta = h('div.msg-meta', t(ai ? 'chat.ai' : 'chat.you'), offline ? offlineBadge() : null);
  const stallEl = h('div.msg-stall', { role: 'status', hidden: true });
  const markEl = h('div.msg-stopped', { hidden: true });
  const errEl = h('div.msg-error', { role: 'alert', hidden: true });
  const actions = h('div.msg-actions', { hidden: true });
  const el = h(`article.msg.msg-${role}`, { 'aria-label': t(ai ? 'chat.aiAnswer' : 'chat.yourMessage') },
    meta, reasoningEl, contentEl, stallEl, markEl, errEl, actions);
  let pending = 0;
  let lastRender = 0;
  const render = () => {
    pending = 0;
    lastRender = performance.now();
    if (ai) renderMarkdown(contentEl, raw); else contentEl.textContent = raw;
  };
  const b = {
    el,
    actions,
    raw: () => raw,
    /** Appends streamed text; the Markdown is rendered again at most every 80 ms. */
    addContent(text) {
      raw += text;
      if (!ai || performance.now() - lastRender > 80) render();
      else if (!pending) pending = setTimeout(render, 80);
    },
    /** Replaces the whole answer (regenerating). */
    reset() {
      raw = '';
      render();
      reasoningBody.replaceChildren();
      reasoningEl.hidden = true;
      markEl.hidden = true;
      errEl.hidden = true;
      actions.hidden = true;
      el.classList.add('streaming');
    },
    addReasoning(text) { reasoningEl.hidden = false; reasoningBody.append(text); },
    setOffline() { if (!meta.querySelector('.badge-offline')) meta.append(offlineBadge()); },
    /** The answer ended early: a calm marker, not an error. */
    stopped(reason) { markEl.textContent = stopText(reason); markEl.hidden = false; },
    /** The model failed: a sentence, the server's detail folded away. */
    fail(msg, detail) {
      clear(errEl, msg, detail ? h('details.msg-detail', h('summary', t('chat.details')), h('span', { 'data-user-content': '' }, detail)) : null);
      errEl.hidden = false;
    },
    /** Shows (seconds > 0) or hides (0) the "no chunk for a while" notice. */
    stall(seconds) {
      stallEl.hidden = !seconds;
      stallEl.textContent = seconds ? t('chat.stall', { s: seconds }) : '';
    },
    finish() {
      if (pending) clearTimeout(pending);
      render();
      b.stall(0);
      el.classList.remove('streaming');
      reasoningBody.normalize();
      if (ai && raw) actions.hidden = false;
    },
  };
  if (ai) {
    actions.append(copyButton(() => raw, t('chat.copy')));
    if (stopReason) b.stopped(stopReason);
    if (error) b.fail(t('chat.failed'), error);
  }
  if (streaming) el.classList.add('streaming');
  else b.finish();
  return b;
}

/** An agent tag ({code, name}) in the page's language. */
export function tagLabel(tag) { return has(`tag.${tag.code}`) ? t(`tag.${tag.code}`) : tag.name; }

/**
 * A provider's name in the page's language: the built-in default's name is
 * the server's fixed English ("Offline model (built-in)", "Default (openai)"),
 * configured providers keep the name an admin gave them.
 */
export function providerName(id, name) {
  if (id !== 'default') return name;
  if (/^Offline model/.test(name || '')) return t('chat.offlineBuiltin');
  const m = /^Default \((.*)\)$/.exec(name || '');
  return m ? t('chat.defaultProvider', { provider: m[1] }) : t('chat.defaultModel');
}

/**
 * "<model or agent> · 12 messages · date" of a conversation in the list (the
 * name is user content). agentLabel, when given, names the conversation's
 * agent in the page's language (the built-in one), or returns ''.
 */
function convMeta(c, agentLabel) {
  const text = t('chat.meta', { n: c.messageCount ?? 0, time: fmtTime(c.lastMessageTime || c.createTime) });
  const label = c.agentName && agentLabel ? agentLabel(c) : '';
  if (label) return [label, ' · ', text];
  if (c.agentName) return [h('span', { 'data-user-content': '' }, c.agentName), ' · ', text];
  if (c.aiId === 'default') return [providerName(c.aiId, c.aiName), ' · ', text];
  return c.aiName ? [h('span', { 'data-user-content': '' }, c.aiName), ' · ', text] : text;
}

/**
 * A chat panel over one kind of session.
 * cfg: {title, listPath, historyPath(sid), chatPath(sid), create(firstMessage) -> sid,
 *       extraControls(panel) -> Node[], onSessionChange(sid), emptyText}
 */
function chatPanel(root, cfg) {
  const state = { sid: cfg.initialSid || '', controller: null, streaming: false, lastAi: null, stallMs: 20000 };
  const alert = alertBox();
  const list = h('ul.conv-list', { 'aria-label': t('chat.conversations') });
  const messages = h('div.messages', { 'aria-live': 'polite', 'aria-label': t('chat.messages'), tabindex: '0' });
  const input = h('textarea', { rows: 3, maxlength: 20000, placeholder: t('chat.placeholder'), required: true });
  const send = h('button.btn.btn-primary', { type: 'submit' }, t('chat.send'));
  const stop = h('button.btn', { type: 'button', hidden: true }, t('chat.stop'));
  const newBtn = h('button.btn', { type: 'button' }, t('chat.new'));
  const titleEl = h('h2.chat-title', cfg.emptyText || t('chat.new'));
  const form = h('form.composer', field(t('chat.message'), input).wrap, h('div.row', send, stop, h('small.muted.composer-hint', t('chat.sendHint'))));
  // On a phone the list folds away (a <details>), so the composer stays in the first screen.
  const listBox = h('details.conv-box', { open: window.matchMedia('(min-width: 760px)').matches },
    h('summary', t('chat.conversations')), list);
  api('/ai/config').then((c) => { if (c && c.stallNoticeMs > 0) state.stallMs = c.stallNoticeMs; }).catch(() => { /* keep the default */ });

  /** The title: a conversation's title is user content, the placeholder title is not. */
  function setTitle(text, user) {
    state.untitled = !text;
    titleEl.textContent = text || t('chat.untitled');
    if (user && text) titleEl.setAttribute('data-user-content', '');
    else titleEl.removeAttribute('data-user-content');
  }

  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); form.requestSubmit(); }
  });
  stop.addEventListener('click', () => state.controller && state.controller.abort());
  newBtn.addEventListener('click', () => { select(''); input.focus(); });

  async function loadList() {
    try {
      const page = await api(`${cfg.listPath}${cfg.listPath.includes('?') ? '&' : '?'}current=1&size=50`);
      clear(list, ...(page.records || []).map((c) => h('li', h('button.conv', {
        type: 'button', 'aria-current': c.sessionId === state.sid ? 'true' : null, dataset: { sid: c.sessionId },
        onclick: () => { select(c.sessionId); if (!window.matchMedia('(min-width: 760px)').matches) listBox.open = false; },
      }, (c.title || c.conversationTitle) ? h('span.conv-title', { 'data-user-content': '' }, c.title || c.conversationTitle) : h('span.conv-title', t('chat.untitled')),
      h('small.muted', convMeta(c, cfg.agentLabel))))));
      if (!(page.records || []).length) list.append(h('li.muted', t('chat.none')));
    } catch (e) { alert.error(e); }
  }

  /** Offers "Regenerate" on the last answer only (where the API can). */
  function markLast(b) {
    if (state.lastAi) state.lastAi.actions.querySelector('.regen-btn')?.remove();
    state.lastAi = b;
    if (b && cfg.regeneratePath) {
      b.actions.append(h('button.btn.btn-small.regen-btn', { type: 'button', onclick: () => regenerate(b) }, t('chat.regenerate')));
    }
  }

  async function select(sid) {
    if (state.streaming && state.controller) state.controller.abort();
    state.sid = sid;
    state.lastAi = null;
    if (cfg.onSessionChange) cfg.onSessionChange(sid);
    for (const b of list.querySelectorAll('button.conv')) b.removeAttribute('aria-current');
    clear(messages);
    alert.clear();
    if (!sid) { setTitle(cfg.emptyText || t('chat.new'), false); return; }
    const btn = [...list.querySelectorAll('button.conv')].find((b) => b.dataset.sid === sid);
    if (btn) btn.setAttribute('aria-current', 'true');
    try {
      const hist = await api(cfg.historyPath(sid));
      const items = Array.isArray(hist) ? hist : (hist.records || []);
      if (cfg.titleOf) setTitle(await cfg.titleOf(sid), true);
      else setTitle(t('chat.conversation'), false);
      let last = null;
      for (const m of items) {
        const b = bubble(m.messageType === 1 ? 'user' : 'ai', {
          content: m.messageContent, reasoning: m.reasoningContent || '', offline: m.offline,
          error: m.errorMessage || '', stopReason: m.incomplete ? (m.stopReason || 'other') : '',
        });
        messages.append(b.el);
        last = m.messageType === 1 ? null : b;
      }
      if (last) markLast(last);
      messages.scrollTop = messages.scrollHeight;
    } catch (e) { alert.error(e); }
  }

  /**
   * Streams an answer from path into the AI bubble ai; shows the stall
   * notice after stallNoticeMs without a chunk; marks how it ended.
   * Returns true when the answer completed.
   */
  async function stream(path, body, ai, onFailure) {
    alert.clear();
    const controller = new AbortController();
    state.controller = controller;
    state.streaming = true;
    send.disabled = true;
    stop.hidden = false;
    for (const b of messages.querySelectorAll('.regen-btn')) b.disabled = true;
    let timer = 0;
    let since = performance.now();
    const watch = () => {
      clearTimeout(timer);
      since = performance.now();
      ai.stall(0);
      const tick = () => {
        ai.stall(Math.round((performance.now() - since) / 1000));
        messages.scrollTop = messages.scrollHeight;
        timer = setTimeout(tick, 5000); // not every second: it is read out (role=status)
      };
      timer = setTimeout(tick, state.stallMs);
    };
    let ok = false;
    let told = false; // the stream said how it ended (end or error)
    try {
      watch();
      const res = await openStream(path, body, controller.signal);
      for await (const ev of sseEvents(res, controller.signal)) {
        if (ev.event === 'message' && ev.data && typeof ev.data === 'object') {
          watch();
          if (ev.data.type === 'reasoning_content') ai.addReasoning(ev.data.content);
          else ai.addContent(ev.data.content);
          messages.scrollTop = messages.scrollHeight;
          // Give the page a frame to paint each chunk as it comes (not in a
          // hidden tab, where frames stop until it is shown again).
          if (document.visibilityState === 'visible') await new Promise((r) => requestAnimationFrame(() => r()));
        } else if (ev.event === 'end') {
          ok = true;
          told = true;
          if (ev.data && ev.data.offline) { ai.setOffline(); noteOffline(true); }
        } else if (ev.event === 'error') {
          const env = ev.data || {};
          told = true;
          if (env.code === 'B000415') ai.stopped('timeout'); // idle or too long: the history says which
          else ai.fail(t('chat.failed'), env.message || '');
        }
      }
      // Stopped by the user, or the connection ended without saying how:
      // what arrived is kept either way.
      if (controller.signal.aborted) ai.stopped('user');
      else if (!told) ai.stopped('other');
    } catch (e) {
      if (e.name === 'AbortError') ai.stopped('user');
      else { ai.fail(describeError(e)); alert.error(e); if (onFailure) onFailure(); }
    } finally {
      clearTimeout(timer);
      ai.finish();
      state.streaming = false;
      state.controller = null;
      send.disabled = false;
      stop.hidden = true;
      for (const b of messages.querySelectorAll('.regen-btn')) b.disabled = false;
      loadList();
    }
    return ok;
  }

  async function regenerate(ai) {
    if (state.streaming || !state.sid) return;
    ai.reset();
    await stream(cfg.regeneratePath(state.sid), cfg.regenerateBody ? cfg.regenerateBody() : {}, ai);
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text || state.streaming) return;
    alert.clear();
    const mine = bubble('user', { content: text });
    messages.append(mine.el);
    const ai = bubble('ai', { streaming: true });
    messages.append(ai.el);
    markLast(ai);
    messages.scrollTop = messages.scrollHeight;
    input.value = '';
    try {
      if (!state.sid) {
        state.sid = await cfg.create(text);
        if (cfg.onSessionChange) cfg.onSessionChange(state.sid);
        setTitle(text.length > 20 ? `${text.slice(0, 20)}...` : text, true);
      } else if (state.untitled) {
        // The server names an untitled conversation by its first message.
        setTitle(text.length > 20 ? `${text.slice(0, 20)}...` : text, true);
        loadList();
      }
    } catch (e) {
      ai.fail(describeError(e));
      ai.finish();
      alert.error(e);
      input.value = input.value || text;
      return;
    }
    await stream(cfg.chatPath(state.sid), cfg.chatBody(text), ai, () => { input.value = input.value || text; });
  });

  const extra = cfg.extraControls ? cfg.extraControls({ getSid: () => state.sid, setSid: (s) => { state.sid = s; setTitle('', false); }, alert, messages }) : [];
  clear(root,
    h('div.chat-layout',
      h('aside.sidebar', { 'aria-label': t('chat.conversationList') }, newBtn, listBox),
      h('section.chat-main',
        h('div.chat-head', titleEl, ...extra),
        alert.el,
        messages,
        form)));
  loadList();
  if (state.sid) select(state.sid);
  return { abort: () => state.controller && state.controller.abort(), select, loadList };
}

/** #/chat: chat with a configured model. */
export async function chatView(root, params) {
  document.title = t('shell.title', { page: t('chat.title') });
  const picker = h('select', { name: 'aiId' });
  const pickerField = field(t('chat.model'), picker);
  pickerField.wrap.classList.add('inline');
  let panel;
  try {
    const opts = await api('/ai-properties/options');
    clear(picker, h('option', { value: '' }, t('chat.defaultModel')),
      ...opts.map((o) => (o.id === 'default'
        ? h('option', { value: o.id }, providerName(o.id, o.aiName))
        : h('option', { value: o.id, 'data-user-content': '' }, t(o.offline ? 'chat.offlineOption' : 'chat.option', { name: o.aiName, type: o.aiType })))));
  } catch (e) { toast(describeError(e), 'error'); }
  panel = chatPanel(root, {
    initialSid: params[0] || '',
    listPath: '/ai/conversations',
    historyPath: (sid) => `/ai/history/${encodeURIComponent(sid)}`,
    chatPath: (sid) => `/ai/sessions/${encodeURIComponent(sid)}/chat`,
    chatBody: (text) => (picker.value ? { inputMessage: text, aiId: picker.value } : { inputMessage: text }),
    regeneratePath: (sid) => `/ai/sessions/${encodeURIComponent(sid)}/regenerate`,
    regenerateBody: () => (picker.value ? { aiId: picker.value } : {}),
    titleOf: async (sid) => (await api(`/ai/conversations/${encodeURIComponent(sid)}`)).title,
    create: async (first) => {
      const body = { firstMessage: first };
      if (picker.value) body.aiId = picker.value;
      return (await api('/ai/conversations', { method: 'POST', body })).sessionId;
    },
    onSessionChange: (sid) => history.replaceState(null, '', sid ? `#/chat/${encodeURIComponent(sid)}` : '#/chat'),
    extraControls: () => [pickerField.wrap],
    emptyText: t('chat.new'),
  });
  return () => panel.abort();
}

/** #/agents: pick an agent, chat with it, give it files. */
export async function agentsView(root, params) {
  document.title = t('shell.title', { page: t('agents.title') });
  const agentSelect = h('select', { name: 'agentId' });
  const agentField = field(t('agents.agent'), agentSelect);
  agentField.wrap.classList.add('inline');
  const desc = h('p.muted.agent-desc', { 'data-user-content': '' });
  let agents = [];
  async function loadAgents() {
    const picked = agentSelect.value;
    const page = await api('/agent-properties?current=1&size=100');
    agents = page.records || [];
    clear(agentSelect, h('option', { value: '' }, t('agents.general')),
      ...agents.map((a) => (a.builtIn
        ? h('option', { value: a.id }, t('agents.builtinName'))
        : h('option', { value: a.id, 'data-user-content': '' }, a.agentName))));
    agentSelect.value = picked;
  }
  try { await loadAgents(); } catch (e) { toast(describeError(e), 'error'); }
  const showDesc = () => {
    const a = agents.find((x) => x.id === agentSelect.value);
    clear(desc, a ? [a.builtIn ? t('agents.builtinDesc') : a.description || '', ' ', ...(a.tags || []).map((tag) => h('span.tag', tagLabel(tag)))] : h('span', t('agents.defaultDesc')));
    if (a && !a.builtIn) desc.setAttribute('data-user-content', ''); else desc.removeAttribute('data-user-content');
  };
  agentSelect.addEventListener('change', showDesc);
  showDesc();

  const fileInput = h('input', { type: 'file', accept: '.pdf,.txt,.md,.docx,application/pdf,text/plain,text/markdown' });
  const uploadBtn = h('button.btn', { type: 'button' }, t('agents.upload'));
  const fileStatus = h('small.muted', { 'aria-live': 'polite' });
  const files = filesPanel();
  let panel;
  const ensureSession = async (first) => {
    const body = {};
    if (agentSelect.value) body.agentId = agentSelect.value;
    if (first) body.firstMessage = first;
    const sid = (await api('/agents/sessions', { method: 'POST', body })).sessionId;
    // The server creates the built-in agent on its first session: learn
    // it, so that the list names it in the page's language.
    if (!body.agentId && !agents.some((a) => a.builtIn)) await loadAgents().catch(() => {});
    return sid;
  };
  panel = chatPanel(root, {
    initialSid: params[0] || '',
    listPath: '/agents/conversations',
    historyPath: (sid) => `/agents/conversations/${encodeURIComponent(sid)}/messages`,
    chatPath: (sid) => `/agents/sessions/${encodeURIComponent(sid)}/chat`,
    chatBody: (text) => ({ inputMessage: text }),
    regeneratePath: (sid) => `/agents/sessions/${encodeURIComponent(sid)}/regenerate`,
    titleOf: async (sid) => (await api(`/agents/conversations/${encodeURIComponent(sid)}`)).title,
    // The built-in agent's name is the server's fixed id: named in the page's language.
    agentLabel: (c) => (agents.some((a) => a.builtIn && (a.id === c.agentId || a.agentName === c.agentName)) ? t('agents.builtinName') : ''),
    create: ensureSession,
    onSessionChange: (sid) => {
      history.replaceState(null, '', sid ? `#/agents/${encodeURIComponent(sid)}` : '#/agents');
      files.load(sid);
    },
    extraControls: (p) => {
      uploadBtn.addEventListener('click', async () => {
        const f = fileInput.files[0];
        if (!f) { fileStatus.textContent = t('agents.chooseFile'); fileInput.focus(); return; }
        await busy(uploadBtn, async () => {
          try {
            if (!p.getSid()) {
              p.setSid(await ensureSession(''));
              history.replaceState(null, '', `#/agents/${encodeURIComponent(p.getSid())}`);
            }
            const form = new FormData();
            form.append('file', f);
            form.append('sessionId', p.getSid());
            const r = (await call('/agents/files/upload', { method: 'POST', form })).data;
            fileStatus.textContent = t(r.truncated ? 'agents.givenTruncated' : 'agents.given', { file: r.fileName, n: r.chars });
            toast(t('agents.uploaded'), 'success');
            panel && panel.loadList();
            files.load(p.getSid());
          } catch (e) { p.alert.error(e); }
        }, t('agents.uploading'));
      });
      const fileField = field(t('agents.contextFile'), fileInput);
      fileField.wrap.classList.add('inline');
      return [h('div.agent-controls', agentField.wrap, desc, h('div.row', fileField.wrap, uploadBtn, fileStatus), files.el)];
    },
    emptyText: t('agents.new'),
  });
  files.load(params[0] || '');
  return () => panel.abort();
}
