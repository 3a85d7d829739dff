// AI chat and agent chat: conversation list, history, streaming answers.

import { api, call, describeError, noteOffline, openStream, sseEvents } from './api.js';
import { filesPanel } from './agentfiles.js';
import { alertBox, busy, clear, field, fmtTime, h, offlineBadge, toast } from './ui.js';

/** Renders one message bubble; returns {el, addContent, addReasoning, finish}. */
function bubble(role, { content = '', reasoning = '', offline = false, error = '' } = {}) {
  const contentEl = h('div.msg-content', content);
  const reasoningBody = h('div.msg-reasoning-body', reasoning);
  const reasoningEl = h('details.msg-reasoning', { hidden: !reasoning, open: true },
    h('summary', 'Reasoning'), reasoningBody);
  const meta = h('div.msg-meta', role === 'user' ? 'You' : 'AI', offline ? offlineBadge() : null);
  const errEl = h('div.msg-error', { role: 'alert', hidden: !error }, error);
  const el = h(`article.msg.msg-${role}`, { 'aria-label': role === 'user' ? 'Your message' : 'AI answer' },
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

/**
 * A chat panel over one kind of session.
 * cfg: {title, listPath, historyPath(sid), chatPath(sid), create(firstMessage) -> sid,
 *       extraControls(panel) -> Node[], onSessionChange(sid), emptyText}
 */
function chatPanel(root, cfg) {
  const state = { sid: cfg.initialSid || '', controller: null, streaming: false };
  const alert = alertBox();
  const list = h('ul.conv-list', { 'aria-label': 'Conversations' });
  const messages = h('div.messages', { 'aria-live': 'polite', 'aria-label': 'Conversation messages', tabindex: '0' });
  const input = h('textarea', { rows: 3, maxlength: 20000, placeholder: 'Type a message… (Ctrl+Enter to send)', required: true });
  const send = h('button.btn.btn-primary', { type: 'submit' }, 'Send');
  const stop = h('button.btn', { type: 'button', hidden: true }, 'Stop');
  const newBtn = h('button.btn', { type: 'button' }, 'New conversation');
  const titleEl = h('h2.chat-title', cfg.emptyText || 'New conversation');
  const form = h('form.composer', field('Message', input).wrap, h('div.row', send, stop));

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
      }, h('span.conv-title', c.title || c.conversationTitle || 'Untitled'),
      h('small.muted', `${c.agentName || c.aiName || ''} · ${c.messageCount ?? 0} messages · ${fmtTime(c.lastMessageTime || c.createTime)}`)))));
      if (!(page.records || []).length) list.append(h('li.muted', 'No conversations yet.'));
    } catch (e) { alert.error(e); }
  }

  async function select(sid) {
    if (state.streaming && state.controller) state.controller.abort();
    state.sid = sid;
    if (cfg.onSessionChange) cfg.onSessionChange(sid);
    for (const b of list.querySelectorAll('button.conv')) b.removeAttribute('aria-current');
    clear(messages);
    alert.clear();
    if (!sid) { titleEl.textContent = cfg.emptyText || 'New conversation'; return; }
    const btn = [...list.querySelectorAll('button.conv')].find((b) => b.dataset.sid === sid);
    if (btn) btn.setAttribute('aria-current', 'true');
    try {
      const hist = await api(cfg.historyPath(sid));
      const items = Array.isArray(hist) ? hist : (hist.records || []);
      titleEl.textContent = cfg.titleOf ? (await cfg.titleOf(sid)) : 'Conversation';
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
        titleEl.textContent = text.length > 20 ? `${text.slice(0, 20)}...` : text;
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
          ai.fail(`The answer stopped: ${env.message || 'model error'} (${env.code || 'error'})`);
          alert.error({ message: env.message, name: 'StreamError' });
        }
      }
    } catch (e) {
      if (e.name === 'AbortError') ai.fail('Stopped. The partial answer is saved.');
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
      h('aside.sidebar', { 'aria-label': 'Conversation list' }, h('h2.sr-only', 'Conversations'), newBtn, list),
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
  document.title = 'Chat · AI-Meeting';
  const picker = h('select', { name: 'aiId' });
  const pickerField = field('Model', picker);
  pickerField.wrap.classList.add('inline');
  let panel;
  try {
    const opts = await api('/ai-properties/options');
    clear(picker, h('option', { value: '' }, 'Default model'),
      ...opts.map((o) => h('option', { value: o.id }, `${o.aiName} (${o.aiType})${o.offline ? ' — offline' : ''}`)));
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
    emptyText: 'New conversation',
  });
  return () => panel.abort();
}

/** #/agents: pick an agent, chat with it, give it files. */
export async function agentsView(root, params) {
  document.title = 'Agents · AI-Meeting';
  const agentSelect = h('select', { name: 'agentId' });
  const agentField = field('Agent', agentSelect);
  agentField.wrap.classList.add('inline');
  const desc = h('p.muted.agent-desc');
  let agents = [];
  try {
    const page = await api('/agent-properties?current=1&size=100');
    agents = page.records || [];
    clear(agentSelect, h('option', { value: '' }, 'General agent (default)'),
      ...agents.map((a) => h('option', { value: a.id }, a.agentName)));
  } catch (e) { toast(describeError(e), 'error'); }
  const showDesc = () => {
    const a = agents.find((x) => x.id === agentSelect.value);
    clear(desc, a ? [a.description || '', ' ', ...(a.tags || []).map((t) => h('span.tag', t.name))] : 'The default agent answers general questions.');
  };
  agentSelect.addEventListener('change', showDesc);
  showDesc();

  const fileInput = h('input', { type: 'file', accept: '.pdf,.txt,.md,.docx,application/pdf,text/plain,text/markdown' });
  const uploadBtn = h('button.btn', { type: 'button' }, 'Upload file');
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
        if (!f) { fileStatus.textContent = 'Choose a PDF, TXT, MD or DOCX file first.'; fileInput.focus(); return; }
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
            fileStatus.textContent = `${r.fileName}: ${r.chars} characters${r.truncated ? ' (truncated)' : ''} given to the agent.`;
            toast('File uploaded — the agent can use it in this conversation.', 'success');
            panel && panel.loadList();
            files.load(p.getSid());
          } catch (e) { p.alert.error(e); }
        }, 'Uploading…');
      });
      const fileField = field('Context file', fileInput);
      fileField.wrap.classList.add('inline');
      return [h('div.agent-controls', agentField.wrap, desc, h('div.row', fileField.wrap, uploadBtn, fileStatus), files.el)];
    },
    emptyText: 'New agent conversation',
  });
  files.load(params[0] || '');
  return () => panel.abort();
}
