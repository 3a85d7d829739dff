// Admin pages: AI provider configurations and agent configurations.
// API keys are write-only: the server returns them masked, and an empty key
// field on update keeps the stored key.

import { api, describeError, getUser } from './api.js';
import { providerName, tagLabel } from './chat.js';
import './i18n/chat.js';
import { fmtNumber, t } from './i18n.js';
import './i18n/admin.js';
import { alertBox, busy, clear, confirmDialog, field, h, toast } from './ui.js';
import { adminLinks } from './airouting.js';

const AI_TYPES = ['openai', 'deepseek', 'doubao', 'spark', 'qwen', 'zhipu', 'moonshot', 'ollama', 'offline', 'other'];
// Agent tag codes (internal/agent.Tags); their names come from the catalog (tag.<code>).
const TAG_CODES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 99];

export async function adminView(root) {
  document.title = t('shell.title', { page: t('admin.title') });
  const user = getUser();
  if (!user || !user.isAdmin) {
    clear(root, h('section.card', h('h1', t('admin.title')), h('p', t('admin.only'))));
    return null;
  }
  const providers = h('section.card');
  const agents = h('section.card');
  clear(root, h('h1', t('admin.heading')), adminLinks('admin'), providers, agents);
  let options = [];
  const refreshProviders = await providerSection(providers, (opts) => { options = opts; });
  await agentSection(agents, () => options);
  return refreshProviders;
}

function num(v) { return v === '' || v === null || v === undefined ? undefined : Number(v); }

/** The outcome of a connection test as a short line: ok and latency, or why not. */
function testLine(el, r) {
  el.className = `test-result ${r.ok ? 'ok' : 'fail'}`;
  if (r.ok) clear(el, t(r.offline ? 'admin.testOffline' : 'admin.testOk', { ms: fmtNumber(r.latencyMs || 0) }));
  else clear(el, t('admin.testFailed'), ' ', h('span', { 'data-user-content': '' }, r.reason || ''));
}

/** Runs a connection test (POST path with body) from button into the line el. */
async function runTest(button, el, path, body) {
  clear(el);
  el.className = 'test-result';
  await busy(button, async () => {
    try { testLine(el, await api(path, { method: 'POST', body })); } catch (e) { testLine(el, { ok: false, reason: describeError(e) }); }
  }, t('admin.testing'));
}

async function providerSection(box, setOptions) {
  const alert = alertBox();
  const table = h('tbody');
  const form = h('form.stack.admin-form');
  const f = {
    id: h('input', { type: 'hidden' }),
    aiName: h('input', { required: true, maxlength: 64 }),
    aiType: h('select', { translate: 'no' }, ...AI_TYPES.map((v) => h('option', { value: v }, v))),
    apiUrl: h('input', { type: 'url', placeholder: 'https://api.openai.com/v1', translate: 'no' }),
    apiKey: h('input', { type: 'password', autocomplete: 'off', placeholder: 'sk-…', translate: 'no' }),
    modelName: h('input', { placeholder: 'gpt-4o-mini', translate: 'no' }),
    maxTokens: h('input', { type: 'number', min: 1, step: 1 }),
    temperature: h('input', { type: 'number', min: 0, max: 2, step: 0.1 }),
    systemPrompt: h('textarea', { rows: 3 }),
    supportsVision: h('input', { type: 'checkbox' }),
    isEnabled: h('input', { type: 'checkbox', checked: true }),
  };
  const keyHint = t('admin.keyHint');
  const save = h('button.btn.btn-primary', { type: 'submit' }, t('admin.saveProvider'));
  const reset = h('button.btn', { type: 'button' }, t('admin.newProvider'));
  const formTest = h('button.btn', { type: 'button' }, t('admin.test'));
  const formTestResult = h('span.test-result', { role: 'status' });
  const warning = h('div.save-warning', { role: 'alert', hidden: true });
  const formTitle = h('h3', t('admin.newProvider'));
  clear(form, formTitle, f.id,
    h('div.grid-2', field(t('admin.name'), f.aiName).wrap, field(t('admin.type'), f.aiType).wrap,
      field(t('admin.apiUrl'), f.apiUrl).wrap, field(t('admin.apiKey'), f.apiKey, keyHint).wrap,
      field(t('admin.model'), f.modelName).wrap, field(t('admin.maxTokens'), f.maxTokens).wrap,
      field(t('admin.temperature'), f.temperature).wrap),
    field(t('admin.systemPrompt'), f.systemPrompt).wrap,
    h('div.row', h('label.check', f.supportsVision, t('admin.vision')), h('label.check', f.isEnabled, t('admin.enabled'))),
    warning,
    h('div.row', save, formTest, reset, formTestResult));

  const fill = (p) => {
    clear(formTestResult);
    f.id.value = p ? p.id : '';
    f.aiName.value = p ? p.aiName : '';
    f.aiType.value = p ? p.aiType : 'openai';
    f.apiUrl.value = p ? p.apiUrl : '';
    f.apiKey.value = '';
    f.apiKey.placeholder = p && p.apiKeySet ? t('admin.stored', { key: p.apiKey }) : 'sk-…';
    f.modelName.value = p ? p.modelName : '';
    f.maxTokens.value = p && p.maxTokens ? p.maxTokens : '';
    f.temperature.value = p && p.temperature !== null && p.temperature !== undefined ? p.temperature : '';
    f.systemPrompt.value = p ? p.systemPrompt : '';
    f.supportsVision.checked = !!(p && p.supportsVision);
    f.isEnabled.checked = p ? p.isEnabled : true;
    formTitle.textContent = p ? t('admin.editProvider', { name: p.aiName }) : t('admin.newProvider');
  };
  reset.addEventListener('click', () => { fill(null); f.aiName.focus(); });
  const formBody = () => {
    const body = {
      aiName: f.aiName.value.trim(), aiType: f.aiType.value, apiUrl: f.apiUrl.value.trim(), modelName: f.modelName.value.trim(),
      maxTokens: num(f.maxTokens.value), temperature: num(f.temperature.value), systemPrompt: f.systemPrompt.value,
      supportsVision: f.supportsVision.checked, isEnabled: f.isEnabled.checked,
    };
    if (f.apiKey.value) body.apiKey = f.apiKey.value;
    if (f.id.value) body.id = f.id.value;
    return body;
  };
  formTest.addEventListener('click', () => runTest(formTest, formTestResult, '/ai-properties/test', formBody()));

  async function load() {
    try {
      const page = await api('/ai-properties?current=1&size=100');
      const rs = page.records || [];
      setOptions(rs);
      clear(table, ...rs.map((p) => h('tr',
        h('td', h('span', { 'data-user-content': '' }, p.aiName), p.offline ? h('span.badge.badge-offline', t('admin.offline')) : null),
        h('td', { 'data-user-content': '' }, p.aiType), h('td', { 'data-user-content': '' }, p.modelName || '—'), h('td.mono', { 'data-user-content': '' }, p.apiUrl || '—'),
        p.apiKeySet ? h('td.mono', { 'data-user-content': '' }, p.apiKey) : h('td.mono', t('admin.notSet')),
        h('td', h('label.check', h('input', {
          type: 'checkbox', checked: p.isEnabled, 'aria-label': t('admin.enable', { name: p.aiName }),
          onchange: async (e) => {
            try { await api(`/ai-properties/${encodeURIComponent(p.id)}/status?isEnabled=${e.target.checked}`, { method: 'PUT' }); toast(t('common.saved'), 'success'); } catch (err) { alert.error(err); e.target.checked = !e.target.checked; }
          },
        }), t('admin.enabledShort'))),
        h('td.actions', (() => {
          const result = h('span.test-result', { role: 'status' });
          const test = h('button.btn.btn-small', { type: 'button', onclick: () => runTest(test, result, `/ai-properties/${encodeURIComponent(p.id)}/test`, {}) }, t('admin.test'));
          return [
            test,
            h('button.btn.btn-small', { type: 'button', onclick: () => { fill(p); f.aiName.focus(); } }, t('common.edit')),
            h('button.btn.btn-small.btn-danger', { type: 'button', onclick: async (e) => {
              const btn = e.currentTarget;
              if (!await confirmDialog(t('admin.confirmDeleteProvider', { name: p.aiName }))) return;
              await busy(btn, async () => {
                try { await api(`/ai-properties/${encodeURIComponent(p.id)}`, { method: 'DELETE' }); toast(t('common.deleted'), 'success'); load(); } catch (err) { alert.error(err); }
              });
            } }, t('common.delete')),
            h('br'), result,
          ];
        })()))));
      if (!rs.length) table.append(h('tr', h('td', { colspan: 7 }, t('admin.noProviders'))));
    } catch (e) { alert.error(e); }
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    alert.clear();
    warning.hidden = true;
    await busy(save, async () => {
      const body = formBody();
      try {
        const saved = await api('/ai-properties', { method: f.id.value ? 'PUT' : 'POST', body });
        if (saved && saved.warning) {
          // Saved, but the provider did not answer: users are not offered it.
          clear(warning, t('admin.savedWarning'), h('br'), h('small', { 'data-user-content': '' }, (saved.check && saved.check.reason) || ''));
          warning.hidden = false;
        } else toast(t('admin.providerSaved'), 'success');
        fill(null);
        load();
      } catch (e) { alert.error(e); }
    }, t('common.saving'));
  });

  clear(box, h('h2', t('admin.providers')),
    h('p.muted', t('admin.providersIntro')),
    alert.el,
    h('div.table-wrap', h('table', h('thead', h('tr', ...['admin.name', 'admin.type', 'admin.model', 'admin.url', 'admin.apiKey', 'admin.status', 'admin.actions'].map((k) => h('th', { scope: 'col' }, t(k))))), table)),
    form);
  fill(null);
  await load();
  return null;
}

async function agentSection(box, getOptions) {
  const alert = alertBox();
  const table = h('tbody');
  const form = h('form.stack.admin-form');
  const f = {
    id: h('input', { type: 'hidden' }),
    agentName: h('input', { required: true, maxlength: 64 }),
    description: h('input', { maxlength: 500 }),
    aiId: h('select'),
    modelName: h('input'),
    temperature: h('input', { type: 'number', min: 0, max: 2, step: 0.1 }),
    systemPrompt: h('textarea', { rows: 4 }),
  };
  const tagBoxes = TAG_CODES.map((code) => h('label.check', h('input', { type: 'checkbox', value: code }), ` ${t(`tag.${code}`)}`));
  const save = h('button.btn.btn-primary', { type: 'submit' }, t('admin.saveAgent'));
  const reset = h('button.btn', { type: 'button' }, t('admin.newAgent'));
  const formTitle = h('h3', t('admin.newAgent'));
  const fillProviders = () => clear(f.aiId, h('option', { value: '' }, t('admin.defaultModel')),
    ...getOptions().map((o) => h('option', { value: o.id, 'data-user-content': '' }, `${o.aiName} (${o.aiType})`)));
  clear(form, formTitle, f.id,
    h('div.grid-2', field(t('admin.name'), f.agentName).wrap, field(t('admin.description'), f.description).wrap,
      field(t('admin.provider'), f.aiId).wrap, field(t('admin.modelOverride'), f.modelName).wrap, field(t('admin.temperature'), f.temperature).wrap),
    field(t('admin.systemPrompt'), f.systemPrompt).wrap,
    h('fieldset.tags', h('legend', t('admin.tags')), ...tagBoxes),
    h('div.row', save, reset));
  const fill = (a) => {
    fillProviders();
    f.id.value = a ? a.id : '';
    f.agentName.value = a ? a.agentName : '';
    f.description.value = a ? a.description : '';
    f.aiId.value = a ? a.aiId || '' : '';
    f.modelName.value = a ? a.modelName || '' : '';
    f.temperature.value = a && a.temperature !== null && a.temperature !== undefined ? a.temperature : '';
    f.systemPrompt.value = a ? a.systemPrompt : '';
    for (const l of tagBoxes) { const c = l.querySelector('input'); c.checked = !!(a && (a.tagCodes || []).includes(Number(c.value))); }
    formTitle.textContent = a ? t('admin.editAgent', { name: a.agentName }) : t('admin.newAgent');
  };
  reset.addEventListener('click', () => { fill(null); f.agentName.focus(); });

  async function load() {
    try {
      const page = await api('/agent-properties?current=1&size=100');
      const rs = page.records || [];
      clear(table, ...rs.map((a) => h('tr',
        h('td', h('span', { 'data-user-content': '' }, a.agentName), a.builtIn ? h('span.tag', t('admin.builtIn')) : null), a.builtIn ? h('td', t('agents.builtinDesc')) : h('td', { 'data-user-content': '' }, a.description || ''),
        h('td', (a.tags || []).map((tag) => h('span.tag', tagLabel(tag)))),
        h('td.actions',
          h('button.btn.btn-small', { type: 'button', onclick: () => { fill(a); f.agentName.focus(); } }, t('common.edit')),
          h('button.btn.btn-small.btn-danger', { type: 'button', onclick: async (e) => {
            const btn = e.currentTarget;
            if (!await confirmDialog(t('admin.confirmDeleteAgent', { name: a.agentName }))) return;
            await busy(btn, async () => {
              try { await api(`/agent-properties/${encodeURIComponent(a.id)}`, { method: 'DELETE' }); toast(t('common.deleted'), 'success'); load(); } catch (err) { alert.error(err); }
            });
          } }, t('common.delete'))))));
      if (!rs.length) table.append(h('tr', h('td', { colspan: 4 }, t('admin.noAgents'))));
    } catch (e) { alert.error(e); }
  }
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    alert.clear();
    await busy(save, async () => {
      const body = {
        agentName: f.agentName.value.trim(), description: f.description.value.trim(), systemPrompt: f.systemPrompt.value,
        aiId: f.aiId.value, modelName: f.modelName.value.trim(), temperature: num(f.temperature.value),
        tagCodes: tagBoxes.map((l) => l.querySelector('input')).filter((c) => c.checked).map((c) => Number(c.value)),
      };
      try {
        if (f.id.value) await api('/agent-properties', { method: 'PUT', body: { ...body, id: f.id.value } });
        else await api('/agent-properties', { method: 'POST', body });
        toast(t('admin.agentSaved'), 'success');
        fill(null);
        load();
      } catch (e) { alert.error(e); }
    }, t('common.saving'));
  });
  clear(box, h('h2', t('admin.agents')), alert.el,
    h('div.table-wrap', h('table', h('thead', h('tr', ...['admin.name', 'admin.description', 'admin.tags', 'admin.actions'].map((k) => h('th', { scope: 'col' }, t(k))))), table)),
    form);
  fill(null);
  await load();
}
