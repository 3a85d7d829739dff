// The files of an agent session: listed under the agent controls, each
// downloadable (with the token, through a blob) and deletable.

import { api, blobUrl, describeError } from './api.js';
import { addMessages, fmtDate, t } from './i18n.js';
import { busy, clear, h, toast } from './ui.js';

addMessages({
  en: {
    'agentFiles.heading': 'Files in this conversation',
    'agentFiles.none': 'No files yet.',
    'agentFiles.meta': '{size} · {date}',
    'agentFiles.download': 'Download',
    'agentFiles.delete': 'Delete',
    'agentFiles.deleting': 'Deleting…',
    'agentFiles.confirmDelete': 'Delete {name}? The agent will no longer see it.',
    'agentFiles.deleted': '{name} deleted.',
    'agentFiles.bytes': '{n} bytes',
    'agentFiles.kb': '{n} KB',
    'agentFiles.mb': '{n} MB',
  },
  'zh-CN': {
    'agentFiles.heading': '本会话的文件',
    'agentFiles.none': '还没有文件。',
    'agentFiles.meta': '{size} · {date}',
    'agentFiles.download': '下载',
    'agentFiles.delete': '删除',
    'agentFiles.deleting': '正在删除…',
    'agentFiles.confirmDelete': '删除 {name}？删除后智能体将无法再使用它。',
    'agentFiles.deleted': '已删除 {name}。',
    'agentFiles.bytes': '{n} 字节',
    'agentFiles.kb': '{n} KB',
    'agentFiles.mb': '{n} MB',
  },
});

function sizeText(n) {
  if (n < 1024) return t('agentFiles.bytes', { n });
  if (n < 1024 * 1024) return t('agentFiles.kb', { n: Math.round((n / 1024) * 10) / 10 });
  return t('agentFiles.mb', { n: Math.round((n / 1024 / 1024) * 10) / 10 });
}

/** saveAs downloads the file at url (which needs the token) as name. */
async function saveAs(url, name) {
  const obj = await blobUrl(url);
  const a = h('a', { href: obj, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(obj), 10000);
}

/**
 * filesPanel returns {el, load(sid)}: the list of the session's files.
 * load('') empties it (no session yet).
 */
export function filesPanel() {
  const list = h('ul.agent-files');
  const el = h('section.agent-files-panel', { 'aria-label': t('agentFiles.heading') },
    h('h3', t('agentFiles.heading')), list);
  let current = '';
  async function load(sid) {
    current = sid || '';
    if (!current) { clear(list, h('li.muted', t('agentFiles.none'))); return; }
    let files = [];
    try {
      files = await api(`/agents/files?sessionId=${encodeURIComponent(current)}`);
    } catch (e) { toast(describeError(e), 'error'); return; }
    if (sid !== current) return; // another session was opened meanwhile
    if (!files.length) { clear(list, h('li.muted', t('agentFiles.none'))); return; }
    clear(list, ...files.map((f) => {
      const dl = h('button.btn.btn-small', { type: 'button' }, t('agentFiles.download'));
      dl.addEventListener('click', () => saveAs(f.fileUrl, f.fileName).catch((e) => toast(describeError(e), 'error')));
      const del = h('button.btn.btn-small.btn-danger', { type: 'button' }, t('agentFiles.delete'));
      del.addEventListener('click', async () => {
        if (!window.confirm(t('agentFiles.confirmDelete', { name: f.fileName }))) return;
        await busy(del, async () => {
          try {
            await api(f.fileUrl, { method: 'DELETE' });
            toast(t('agentFiles.deleted', { name: f.fileName }), 'success');
            await load(current);
          } catch (e) { toast(describeError(e), 'error'); }
        }, t('agentFiles.deleting'));
      });
      return h('li', h('span.file-name', f.fileName), ' ',
        h('small.muted', t('agentFiles.meta', { size: sizeText(f.size), date: fmtDate(f.createTime) })), ' ', dl, ' ', del);
    }));
  }
  return { el, load };
}
