// Admin pages: AI provider configurations and agent configurations.
// API keys are write-only: the server returns them masked, and an empty key
// field on update keeps the stored key.

import { api, getUser } from './api.js';
import { alertBox, busy, clear, field, h, toast } from './ui.js';
import { adminLinks } from './airouting.js';

const AI_TYPES = ['openai', 'deepseek', 'doubao', 'spark', 'ollama', 'offline', 'other'];
const TAGS = { 1: 'frontend', 2: 'backend', 3: 'IoT', 4: 'test', 5: 'AI', 6: 'data', 7: 'mobile', 8: 'devops', 9: 'design', 10: 'product', 99: 'other' };

export async function adminView(root) {
  document.title = 'Admin · AI-Meeting';
  const user = getUser();
  if (!user || !user.isAdmin) {
    clear(root, h('section.card', h('h1', 'Admin'), h('p', 'This page is for administrators only.')));
    return null;
  }
  const providers = h('section.card');
  const agents = h('section.card');
  clear(root, h('h1', 'Administration'), adminLinks('admin'), providers, agents);
  let options = [];
  const refreshProviders = await providerSection(providers, (opts) => { options = opts; });
  await agentSection(agents, () => options);
  return refreshProviders;
}

function num(v) { return v === '' || v === null || v === undefined ? undefined : Number(v); }

async function providerSection(box, setOptions) {
  const alert = alertBox();
  const table = h('tbody');
  const form = h('form.stack.admin-form');
  const f = {
    id: h('input', { type: 'hidden' }),
    aiName: h('input', { required: true, maxlength: 64 }),
    aiType: h('select', ...AI_TYPES.map((t) => h('option', { value: t }, t))),
    apiUrl: h('input', { type: 'url', placeholder: 'https://api.openai.com/v1' }),
    apiKey: h('input', { type: 'password', autocomplete: 'off', placeholder: 'sk-…' }),
    modelName: h('input', { placeholder: 'gpt-4o-mini' }),
    maxTokens: h('input', { type: 'number', min: 1, step: 1 }),
    temperature: h('input', { type: 'number', min: 0, max: 2, step: 0.1 }),
    systemPrompt: h('textarea', { rows: 3 }),
    supportsVision: h('input', { type: 'checkbox' }),
    isEnabled: h('input', { type: 'checkbox', checked: true }),
  };
  const keyHint = 'Write-only. Leave empty to keep the stored key.';
  const save = h('button.btn.btn-primary', { type: 'submit' }, 'Save provider');
  const reset = h('button.btn', { type: 'button' }, 'New provider');
  const formTitle = h('h3', 'New provider');
  clear(form, formTitle, f.id,
    h('div.grid-2', field('Name', f.aiName).wrap, field('Type', f.aiType).wrap,
      field('API URL', f.apiUrl).wrap, field('API key', f.apiKey, keyHint).wrap,
      field('Model', f.modelName).wrap, field('Max tokens', f.maxTokens).wrap,
      field('Temperature', f.temperature).wrap),
    field('System prompt', f.systemPrompt).wrap,
    h('div.row', h('label.check', f.supportsVision, ' Model can see images'), h('label.check', f.isEnabled, ' Enabled')),
    h('div.row', save, reset));

  const fill = (p) => {
    f.id.value = p ? p.id : '';
    f.aiName.value = p ? p.aiName : '';
    f.aiType.value = p ? p.aiType : 'openai';
    f.apiUrl.value = p ? p.apiUrl : '';
    f.apiKey.value = '';
    f.apiKey.placeholder = p && p.apiKeySet ? `stored: ${p.apiKey}` : 'sk-…';
    f.modelName.value = p ? p.modelName : '';
    f.maxTokens.value = p && p.maxTokens ? p.maxTokens : '';
    f.temperature.value = p && p.temperature !== null && p.temperature !== undefined ? p.temperature : '';
    f.systemPrompt.value = p ? p.systemPrompt : '';
    f.supportsVision.checked = !!(p && p.supportsVision);
    f.isEnabled.checked = p ? p.isEnabled : true;
    formTitle.textContent = p ? `Edit provider “${p.aiName}”` : 'New provider';
  };
  reset.addEventListener('click', () => { fill(null); f.aiName.focus(); });

  async function load() {
    try {
      const page = await api('/ai-properties?current=1&size=100');
      const rs = page.records || [];
      setOptions(rs);
      clear(table, ...rs.map((p) => h('tr',
        h('td', p.aiName, p.offline ? h('span.badge.badge-offline', 'offline') : null),
        h('td', p.aiType), h('td', p.modelName || '—'), h('td.mono', p.apiUrl || '—'),
        h('td.mono', p.apiKeySet ? p.apiKey : 'not set'),
        h('td', h('label.check', h('input', {
          type: 'checkbox', checked: p.isEnabled, 'aria-label': `Enable ${p.aiName}`,
          onchange: async (e) => {
            try { await api(`/ai-properties/${encodeURIComponent(p.id)}/status?isEnabled=${e.target.checked}`, { method: 'PUT' }); toast('Saved.', 'success'); } catch (err) { alert.error(err); e.target.checked = !e.target.checked; }
          },
        }), ' enabled')),
        h('td.actions',
          h('button.btn.btn-small', { type: 'button', onclick: () => { fill(p); f.aiName.focus(); } }, 'Edit'),
          h('button.btn.btn-small.btn-danger', { type: 'button', onclick: async (e) => {
            await busy(e.currentTarget, async () => {
              try { await api(`/ai-properties/${encodeURIComponent(p.id)}`, { method: 'DELETE' }); toast('Deleted.', 'success'); load(); } catch (err) { alert.error(err); }
            });
          } }, 'Delete')))));
      if (!rs.length) table.append(h('tr', h('td', { colspan: 7 }, 'No provider configured: the built-in offline model answers.')));
    } catch (e) { alert.error(e); }
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    alert.clear();
    await busy(save, async () => {
      const body = {
        aiName: f.aiName.value.trim(), aiType: f.aiType.value, apiUrl: f.apiUrl.value.trim(), modelName: f.modelName.value.trim(),
        maxTokens: num(f.maxTokens.value), temperature: num(f.temperature.value), systemPrompt: f.systemPrompt.value,
        supportsVision: f.supportsVision.checked, isEnabled: f.isEnabled.checked,
      };
      if (f.apiKey.value) body.apiKey = f.apiKey.value;
      try {
        if (f.id.value) await api('/ai-properties', { method: 'PUT', body: { ...body, id: f.id.value } });
        else await api('/ai-properties', { method: 'POST', body });
        toast('Provider saved.', 'success');
        fill(null);
        load();
      } catch (e) { alert.error(e); }
    }, 'Saving…');
  });

  clear(box, h('h2', 'AI providers'),
    h('p.muted', 'Models the chat, agents and interviews can use. Keys are never shown in full.'),
    alert.el,
    h('div.table-wrap', h('table', h('thead', h('tr', ...['Name', 'Type', 'Model', 'URL', 'API key', 'Status', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))), table)),
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
  const tagBoxes = Object.entries(TAGS).map(([code, name]) => h('label.check', h('input', { type: 'checkbox', value: code }), ` ${name}`));
  const save = h('button.btn.btn-primary', { type: 'submit' }, 'Save agent');
  const reset = h('button.btn', { type: 'button' }, 'New agent');
  const formTitle = h('h3', 'New agent');
  const fillProviders = () => clear(f.aiId, h('option', { value: '' }, 'Default model'),
    ...getOptions().map((o) => h('option', { value: o.id }, `${o.aiName} (${o.aiType})`)));
  clear(form, formTitle, f.id,
    h('div.grid-2', field('Name', f.agentName).wrap, field('Description', f.description).wrap,
      field('Provider', f.aiId).wrap, field('Model override', f.modelName).wrap, field('Temperature', f.temperature).wrap),
    field('System prompt', f.systemPrompt).wrap,
    h('fieldset.tags', h('legend', 'Tags'), ...tagBoxes),
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
    formTitle.textContent = a ? `Edit agent “${a.agentName}”` : 'New agent';
  };
  reset.addEventListener('click', () => { fill(null); f.agentName.focus(); });

  async function load() {
    try {
      const page = await api('/agent-properties?current=1&size=100');
      const rs = page.records || [];
      clear(table, ...rs.map((a) => h('tr',
        h('td', a.agentName, a.builtIn ? h('span.tag', 'built-in') : null), h('td', a.description || ''),
        h('td', (a.tags || []).map((t) => h('span.tag', t.name))),
        h('td.actions',
          h('button.btn.btn-small', { type: 'button', onclick: () => { fill(a); f.agentName.focus(); } }, 'Edit'),
          h('button.btn.btn-small.btn-danger', { type: 'button', onclick: async (e) => {
            await busy(e.currentTarget, async () => {
              try { await api(`/agent-properties/${encodeURIComponent(a.id)}`, { method: 'DELETE' }); toast('Deleted.', 'success'); load(); } catch (err) { alert.error(err); }
            });
          } }, 'Delete')))));
      if (!rs.length) table.append(h('tr', h('td', { colspan: 4 }, 'No agents yet.')));
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
        toast('Agent saved.', 'success');
        fill(null);
        load();
      } catch (e) { alert.error(e); }
    }, 'Saving…');
  });
  clear(box, h('h2', 'Agents'), alert.el,
    h('div.table-wrap', h('table', h('thead', h('tr', ...['Name', 'Description', 'Tags', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))), table)),
    form);
  fill(null);
  await load();
}
