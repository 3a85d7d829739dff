// AI chat and agent chat: conversation list, history, streaming answers.

import { api, call, describeError, noteOffline, openStream, sseEvents } from './api.js';
import { filesPanel } from './agentfiles.js';
import { has, t } from './i18n.js';
import './i18n/admin.js';
import './i18n/chat.js';
import { alertBox, busy, clear, field, fmtTime, h, offlineBadge, toast } from './ui.js';

/** Renders one message bubble; returns {el, addContent, addReasoning, finish}. */
function bubble(role, { content = '', reasoning = '', offline = false, error = '' } = {}) {
  const contentEl = h('div.msg-content', { 'data-user-content': '' }, content);
  const reasoningBody = h('div.msg-reasoning-body', { 'data-user-content': '' }, reasoning);
  const reasoningEl = h('details.msg-reasoning', { hidden: !reasoning, open: true },
    h('summary', t('chat.reasoning')), reasoningBody);
  const meta = h('div.msg-meta', t(role === 'user' ? 'chat.you' : 'chat.ai'), offline ? offlineBadge() : null);
  const errEl = h('div.msg-error', { role: 'alert', hidden: !error }, error);
  const el = h(`article.msg.msg-${role}`, { 'aria-label': t(role === 'user' ? 'chat.yourMessage' : 'chat.aiAnswer') },
    meta, reasoningEl, contentEl, errEl);
  if (role === 'ai' && !content && !error) el.classList.add('streaming');
  return {
    el,
    contentEl,
    addContent(t) { contentEl.append(t); },
    addReasoning(t) { reasoningEl.hidden = false; reasoningBody.append(t); },
    setOffline() { if (!meta.querySelector('.badge-offline')) meta.append(offlineBadge()); },
    fail(msg) { errEl.textContent = msg; errEl.hidden = false; },
    finish() { el.classList.remove('streaming'); contentEl.normalize(); reasoningBody.normalize(); },
  };
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

/** "<model or agent> · 12 messages · date" of a conversation in the list (the name is user content). */
function convMeta(c) {
  const text = t('chat.meta', { n: c.messageCount ?? 0, time: fmtTime(c.lastMessageTime || c.createTime) });
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
  const state = { sid: cfg.initialSid || '', controller: null, streaming: false };
  const alert = alertBox();
  const list = h('ul.conv-list', { 'aria-label': t('chat.conversations') });
  const messages = h('div.messages', { 'aria-live': 'polite', 'aria-label': t('chat.messages'), tabindex: '0' });
  const input = h('textarea', { rows: 3, maxlength: 20000, placeholder: t('chat.placeholder'), required: true });
  const send = h('button.btn.btn-primary', { type: 'submit' }, t('chat.send'));
  const stop = h('button.btn', { type: 'button', hidden: true }, t('chat.stop'));
  const newBtn = h('button.btn', { type: 'button' }, t('chat.new'));
  const titleEl = h('h2.chat-title', cfg.emptyText || t('chat.new'));
  const form = h('form.composer', field(t('chat.message'), input).wrap, h('div.row', send, stop));

  /** The title: a conversation's title is user content, the placeholder title is not. */
  function setTitle(text, user) {
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
        onclick: () => select(c.sessionId),
      }, (c.title || c.conversationTitle) ? h('span.conv-title', { 'data-user-content': '' }, c.title || c.conversationTitle) : h('span.conv-title', t('chat.untitled')),
      h('small.muted', convMeta(c))))));
      if (!(page.records || []).length) list.append(h('li.muted', t('chat.none')));
    } catch (e) { alert.error(e); }
  }

  async function select(sid) {
    if (state.streaming && state.controller) state.controller.abort();
    state.sid = sid;
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
      for (const m of items) {
        const b = bubble(m.messageType === 1 ? 'user' : 'ai', {
          content: m.messageContent, reasoning: m.reasoningContent || '', offline: m.offline, error: m.errorMessage || '',
        });
        messages.append(b.el);
      }
      messages.scrollTop = messages.scrollHeight;
    } catch (e) { alert.error(e); }
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text || state.streaming) return;
    alert.clear();
    const controller = new AbortController();
    state.controller = controller;
    state.streaming = true;
    send.disabled = true;
    stop.hidden = false;
    const mine = bubble('user', { content: text });
    messages.append(mine.el);
    const ai = bubble('ai');
    messages.append(ai.el);
    messages.scrollTop = messages.scrollHeight;
    input.value = '';
    try {
      if (!state.sid) {
        state.sid = await cfg.create(text);
        if (cfg.onSessionChange) cfg.onSessionChange(state.sid);
        setTitle(text.length > 20 ? `${text.slice(0, 20)}...` : text, true);
      }
      const res = await openStream(cfg.chatPath(state.sid), cfg.chatBody(text), controller.signal);
      for await (const ev2 of sseEvents(res, controller.signal)) {
        if (ev2.event === 'message' && ev2.data && typeof ev2.data === 'object') {
          if (ev2.data.type === 'reasoning_content') ai.addReasoning(ev2.data.content);
          else ai.addContent(ev2.data.content);
          messages.scrollTop = messages.scrollHeight;
          // Give the page a frame to paint each chunk as it comes (not in a
          // hidden tab, where frames stop until it is shown again).
          if (document.visibilityState === 'visible') await new Promise((r) => requestAnimationFrame(() => r()));
        } else if (ev2.event === 'end') {
          if (ev2.data && ev2.data.offline) { ai.setOffline(); noteOffline(true); }
        } else if (ev2.event === 'error') {
          const env = ev2.data || {};
          ai.fail(t('chat.stopped', { msg: env.message || t('chat.modelError'), code: env.code || '-' }));
          alert.error({ message: env.message, name: 'StreamError' });
        }
      }
    } catch (e) {
      if (e.name === 'AbortError') ai.fail(t('chat.stoppedByYou'));
      else { ai.fail(describeError(e)); alert.error(e); input.value = input.value || text; }
    } finally {
      ai.finish();
      state.streaming = false;
      state.controller = null;
      send.disabled = false;
      stop.hidden = true;
      loadList();
    }
  });

  const extra = cfg.extraControls ? cfg.extraControls({ getSid: () => state.sid, setSid: (s) => { state.sid = s; }, alert, messages }) : [];
  clear(root,
    h('div.chat-layout',
      h('aside.sidebar', { 'aria-label': t('chat.conversationList') }, h('h2.sr-only', t('chat.conversations')), newBtn, list),
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
  try {
    const page = await api('/agent-properties?current=1&size=100');
    agents = page.records || [];
    clear(agentSelect, h('option', { value: '' }, t('agents.general')),
      ...agents.map((a) => h('option', { value: a.id, 'data-user-content': '' }, a.agentName)));
  } catch (e) { toast(describeError(e), 'error'); }
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
    return (await api('/agents/sessions', { method: 'POST', body })).sessionId;
  };
  panel = chatPanel(root, {
    initialSid: params[0] || '',
    listPath: '/agents/conversations',
    historyPath: (sid) => `/agents/conversations/${encodeURIComponent(sid)}/messages`,
    chatPath: (sid) => `/agents/sessions/${encodeURIComponent(sid)}/chat`,
    chatBody: (text) => ({ inputMessage: text }),
    titleOf: async (sid) => (await api(`/agents/conversations/${encodeURIComponent(sid)}`)).title,
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
