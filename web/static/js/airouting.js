// Admin pages of model routing: which ai-properties each AI stage uses (in
// order: the next one takes over when one is unavailable) and what the
// model calls cost (calls, calls saved by single-flight, tokens, latency).
// Mounted at #/admin-routing and #/admin-usage; admin.js links here.

import { api, getUser } from './api.js';
import { fmtNumber, locale, t } from './i18n.js';
import './i18n/airouting.js';
import { alertBox, busy, clear, field, h, toast } from './ui.js';


// The stages in the order the server lists them (GET /ai-routing).
const STAGES = ['interview-extraction', 'resume-profile-extraction', 'interview-evaluation', 'interview-review',
  'interview-followup', 'interview-demeanor', 'chat'];

/** stageName is a stage's display name ('chat' → 'Chat (default model)'). */
function stageName(stage) {
  const key = `stage.${stage}`;
  const s = t(key);
  return s === key ? stage : s;
}

/** adminLinks is the row of links between the admin pages; current is marked. */
export function adminLinks(current) {
  ensureStyles();
  const link = (route, key) => h('a', { href: `#/${route}`, 'aria-current': route === current ? 'page' : null }, t(key));
  return h('nav.admin-links', { 'aria-label': t('routing.links.admin') },
    link('admin', 'routing.links.admin'), link('admin-routing', 'routing.links.routing'), link('admin-usage', 'routing.links.usage'));
}

function ensureStyles() {
  if (document.getElementById('airouting-css')) return;
  document.head.append(h('link', { id: 'airouting-css', rel: 'stylesheet', href: '/assets/css/airouting.css' }));
}

function adminOnly(root, titleKey) {
  const user = getUser();
  if (user && user.isAdmin) return false;
  clear(root, h('section.card', h('h1', t(titleKey)), h('p', t('routing.adminOnly'))));
  return true;
}

/** routingView: per stage, an ordered list of model pickers; one save. */
export async function routingView(root) {
  ensureStyles();
  document.title = t('shell.title', { page: t('routing.title') });
  if (adminOnly(root, 'routing.title')) return null;
  const alert = alertBox();
  const body = h('div');
  const save = h('button.btn.btn-primary', { type: 'button' }, t('routing.save'));
  clear(root, h('h1', t('routing.title')), adminLinks('admin-routing'),
    h('section.card', h('p.muted', t('routing.intro')), alert.el, body, h('div.row', save)));

  let models = [];
  let stages = [];
  const lists = {}; // stage -> array of selected ids ('' for an unchosen row)
  const errors = {}; // stage -> alertBox
  try {
    const [enabled, routing] = await Promise.all([api('/ai-properties/enabled'), api('/ai-routing')]);
    models = enabled || [];
    stages = routing.stages || Object.keys(routing.routes || {});
    for (const st of stages) lists[st] = [...((routing.routes[st] || {}).aiIds || [])];
  } catch (e) { alert.error(e); return null; }
  if (!models.length) alert.info(t('routing.noModels'));

  const optionLabel = (m) => `${m.aiName} · ${m.modelName || m.aiType}${m.supportsVision ? ` · ${t('routing.vision')}` : ''}`;
  const renderStage = (st, box) => {
    const ids = lists[st];
    const vision = st === 'interview-demeanor';
    const offered = models.filter((m) => !vision || m.supportsVision);
    const rows = ids.map((id, i) => {
      const known = models.find((m) => m.id === id);
      const select = h('select', { 'aria-label': t('routing.pick', { n: i + 1, name: stageName(st) }), 'data-user-content': true },
        h('option', { value: '' }, t('routing.choose')),
        ...offered.map((m) => h('option', { value: m.id }, optionLabel(m))),
        id && !known ? h('option', { value: id }, id) : null);
      select.value = id;
      select.addEventListener('change', () => {
        ids[i] = select.value;
        errors[st].clear();
        renderStage(st, box); // the vision mark follows the choice
        box.querySelectorAll('select')[i].focus();
      });
      const move = (d) => { [ids[i], ids[i + d]] = [ids[i + d], ids[i]]; renderStage(st, box); };
      const chosen = known || null;
      return h('li', h('span.order', `${i + 1}.`), select,
        chosen && chosen.supportsVision ? h('span.badge.badge-vision', t('routing.vision')) : null,
        h('button.btn.btn-small', { type: 'button', disabled: i === 0, onclick: () => move(-1), 'aria-label': `${t('routing.up')} ${i + 1}` }, '↑'),
        h('button.btn.btn-small', { type: 'button', disabled: i === ids.length - 1, onclick: () => move(1), 'aria-label': `${t('routing.down')} ${i + 1}` }, '↓'),
        h('button.btn.btn-small.btn-danger', { type: 'button', onclick: () => { ids.splice(i, 1); renderStage(st, box); } }, t('routing.remove')));
    });
    errors[st] = errors[st] || alertBox();
    // No model to offer: the button is disabled and says why beside it.
    const hintId = `route-add-hint-${st}`;
    const addHint = offered.length ? null
      : h('small.muted.route-add-hint', { id: hintId }, t(models.length ? 'routing.noVisionModel' : 'routing.addFirst'));
    // The stage's id is a technical name: beside the English name only
    // (a Chinese page names the stage in Chinese).
    clear(box,
      h('h3', stageName(st), locale() === 'zh-CN' ? null : [' ', h('span.stage-id', { translate: 'no' }, st)]),
      h('p.stage-hint', t(`stage.${st}.hint`), vision ? ` ${t('routing.visionOnly')}` : ''),
      ids.length ? h('ol.route-list', rows) : h('p.route-default', t('routing.default')),
      h('div.row.route-add', h('button.btn.btn-small', { type: 'button', disabled: ids.length >= 5 || !offered.length,
        'aria-describedby': addHint ? hintId : null, onclick: () => { ids.push(''); renderStage(st, box); } }, t('routing.add')), addHint),
      errors[st].el);
  };
  const boxes = {};
  clear(body, ...stages.map((st) => { boxes[st] = h('div.route-stage', { dataset: { stage: st } }); renderStage(st, boxes[st]); return boxes[st]; }));

  save.addEventListener('click', async () => {
    alert.clear();
    for (const st of stages) errors[st].clear();
    const empty = stages.find((st) => lists[st].some((id) => !id));
    if (empty) { errors[empty].error(new Error(t('routing.incomplete'))); return; }
    const routes = {};
    for (const st of stages) routes[st] = { aiIds: lists[st] };
    await busy(save, async () => {
      try {
        const res = await api('/ai-routing', { method: 'PUT', body: { routes } });
        for (const st of stages) { lists[st] = [...((res.routes[st] || {}).aiIds || [])]; renderStage(st, boxes[st]); }
        toast(t('routing.saved'), 'success');
      } catch (e) {
        // The server names the stage it refuses ("stage interview-demeanor needs a vision model…").
        const st = stages.find((s) => (e.message || '').includes(`stage ${s}`));
        if (st) errors[st].error(e); else alert.error(e);
      }
    }, t('routing.saving'));
  });
  return null;
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** barChart draws calls and saved calls of each row as paired bars (inline SVG). */
function barChart(title, rows, labelOf) {
  const W = 720; const H = 220; const left = 44; const bottom = 48; const top = 12;
  let max = Math.max(1, ...rows.map((r) => Math.max(r.calls, r.savedCalls)));
  if (max % 2) max += 1; // whole numbers on the middle grid line
  const plotH = H - top - bottom;
  const band = (W - left - 8) / Math.max(rows.length, 1);
  const bw = Math.min(28, band / 2.6);
  const y = (v) => top + plotH - (v / max) * plotH;
  const desc = rows.map((r) => t('usage.chartRow', { key: labelOf(r), n: r.calls, done: r.savedCalls })).join('; ');
  const el = svg('svg', { class: 'usage-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': t('usage.chartLabel', { name: title, what: desc }) });
  for (const f of [0, 0.5, 1]) {
    const v = Math.round(max * f);
    el.append(svg('line', { class: 'axis', x1: left, x2: W - 4, y1: y(v), y2: y(v) }),
      svg('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end' }, fmtNumber(v)));
  }
  rows.forEach((r, i) => {
    const x = left + i * band + band / 2;
    el.append(
      svg('rect', { class: 'bar-calls', x: x - bw - 1, y: y(r.calls), width: bw, height: Math.max(0, top + plotH - y(r.calls)) },
        svg('title', {}, `${labelOf(r)}: ${t('usage.calls')} ${r.calls}`)),
      svg('rect', { class: 'bar-saved', x: x + 1, y: y(r.savedCalls), width: bw, height: Math.max(0, top + plotH - y(r.savedCalls)) },
        svg('title', {}, `${labelOf(r)}: ${t('usage.saved')} ${r.savedCalls}`)),
      svg('text', { x, y: H - bottom + 16, 'text-anchor': 'middle' }, shorten(labelOf(r), Math.max(6, Math.floor(band / 7)))));
  });
  return h('figure.chart', h('figcaption', h('strong', title)),
    h('div.chart-legend', h('span', h('span.swatch.swatch-calls'), t('usage.calls')), h('span', h('span.swatch.swatch-saved'), t('usage.saved'))),
    el);
}

function shorten(s, n) { return s.length > n ? `${s.slice(0, n - 1)}…` : s; }

function isoDay(d) { return d.toISOString().slice(0, 10); }

/** usageView: period filters, totals, charts per day and per stage, a table. */
export async function usageView(root) {
  ensureStyles();
  document.title = t('shell.title', { page: t('usage.title') });
  if (adminOnly(root, 'usage.title')) return null;
  const alert = alertBox();
  const now = new Date();
  const from = h('input', { type: 'date', value: isoDay(new Date(now.getTime() - 13 * 86400000)) });
  const to = h('input', { type: 'date', value: isoDay(now) });
  const groupBy = h('select', ...['stage', 'model', 'day'].map((g) => h('option', { value: g }, t(`usage.group.${g}`))));
  const show = h('button.btn.btn-primary', { type: 'submit' }, t('usage.show'));
  const form = h('form.usage-filters', field(t('usage.from'), from).wrap, field(t('usage.to'), to).wrap,
    field(t('usage.groupBy'), groupBy).wrap, h('div.field', show));
  const totals = h('div.usage-totals');
  const charts = h('div');
  const table = h('div.table-wrap');
  clear(root, h('h1', t('usage.title')), adminLinks('admin-usage'),
    h('section.card', h('p.muted', t('usage.intro')), form, alert.el, totals),
    h('section.card', charts), h('section.card', table));

  const keyLabel = (g) => (r) => (g === 'stage' ? stageName(r.key) : g === 'model' && r.key === '(saved)' ? t('usage.savedKey') : r.key);
  const cols = [['calls', 'usage.calls'], ['savedCalls', 'usage.saved'], ['promptTokens', 'usage.promptTokens'],
    ['completionTokens', 'usage.completionTokens'], ['failures', 'usage.failures'], ['fallbacks', 'usage.fallbacks'],
    ['p50Ms', 'usage.p50'], ['p95Ms', 'usage.p95']];

  async function load() {
    alert.clear();
    const q = (g) => api(`/ai-usage?groupBy=${g}&from=${encodeURIComponent(from.value)}&to=${encodeURIComponent(to.value)}`);
    try {
      const g = groupBy.value;
      const [byDay, byStage, byGroup] = await Promise.all([q('day'), q('stage'), g === 'day' || g === 'stage' ? null : q(g)]);
      const rep = g === 'day' ? byDay : g === 'stage' ? byStage : byGroup;
      const tot = byDay.totals;
      const requests = tot.calls + tot.savedCalls;
      clear(totals,
        h('div', h('strong', fmtNumber(tot.calls)), h('span', t('usage.calls'))),
        h('div', h('strong', fmtNumber(tot.savedCalls)), h('span', t('usage.saved'))),
        h('div', h('strong', fmtNumber(tot.promptTokens + tot.completionTokens)), h('span', t('usage.tokens'))),
        h('div', h('strong', fmtNumber(tot.fallbacks)), h('span', t('usage.fallbacks'))),
        requests ? h('div', h('strong', fmtNumber(tot.savedCalls / requests, { style: 'percent', maximumFractionDigits: 1 })),
          h('span', t('usage.savedShare'))) : null);
      if (!byDay.rows.length) {
        clear(charts, h('p.muted', t('usage.empty')));
      } else {
        // Stages in the routing page's order.
        const order = (k) => { const i = STAGES.indexOf(k); return i < 0 ? STAGES.length : i; };
        const stageRows = [...byStage.rows].sort((a, b) => order(a.key) - order(b.key));
        clear(charts, barChart(t('usage.byDay'), byDay.rows, (r) => r.key.slice(5)),
          barChart(t('usage.byStage'), stageRows, keyLabel('stage')));
      }
      const label = keyLabel(g);
      clear(table, h('table',
        h('thead', h('tr', h('th', t(`usage.group.${g}`)), ...cols.map(([, k]) => h('th.num', t(k))))),
        h('tbody', ...rep.rows.map((r) => h('tr', h('td', { 'data-user-content': g === 'model' && r.key !== '(saved)' }, label(r)), ...cols.map(([c]) => h('td.num', fmtNumber(r[c]))))),
          h('tr.total', h('th', t('usage.total')), ...cols.map(([c]) => h('th.num', fmtNumber(rep.totals[c])))))));
    } catch (e) { alert.error(e); }
  }
  form.addEventListener('submit', async (ev) => { ev.preventDefault(); await busy(show, load); });
  await load();
  return null;
}
