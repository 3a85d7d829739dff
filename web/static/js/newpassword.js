// The prompt an account imported from the original AI-Meeting sees at its
// first login: its old password was stored in plain text, so it must
// choose a new one (PUT /users) before going on.

import { api } from './api.js';
import { addMessages, t } from './i18n.js';
import { alertBox, busy, field, h, toast } from './ui.js';

addMessages({
  en: {
    'newPassword.title': 'Choose a new password',
    'newPassword.why': 'Your account was brought over from the previous system, which stored passwords unprotected. Choose a new password to continue.',
    'newPassword.label': 'New password',
    'newPassword.hint': 'At least 8 characters.',
    'newPassword.save': 'Save password',
    'newPassword.saving': 'Saving…',
    'newPassword.saved': 'Password changed.',
  },
  'zh-CN': {
    'newPassword.title': '请设置新密码',
    'newPassword.why': '您的账号来自旧系统，旧系统未加密保存密码。请设置新密码后继续。',
    'newPassword.label': '新密码',
    'newPassword.hint': '至少 8 个字符。',
    'newPassword.save': '保存密码',
    'newPassword.saving': '正在保存…',
    'newPassword.saved': '密码已修改。',
  },
});

/** askNewPassword shows a modal form and resolves once a new password is saved. */
export function askNewPassword() {
  return new Promise((resolve) => {
    const input = h('input', { type: 'password', autocomplete: 'new-password', minlength: 8, required: true });
    const f = field(t('newPassword.label'), input, t('newPassword.hint'));
    const alert = alertBox();
    const submit = h('button.btn.btn-primary', { type: 'submit' }, t('newPassword.save'));
    const form = h('form', h('h2', t('newPassword.title')), h('p', t('newPassword.why')), alert.el, f.wrap, submit);
    const dlg = h('dialog.new-password', { 'aria-label': t('newPassword.title') }, form);
    dlg.addEventListener('cancel', (e) => e.preventDefault()); // Escape does not skip it
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      await busy(submit, async () => {
        try {
          await api('/users', { method: 'PUT', body: { password: input.value } });
          toast(t('newPassword.saved'), 'success');
          dlg.close();
          dlg.remove();
          resolve();
        } catch (err) { alert.error(err); }
      }, t('newPassword.saving'));
    });
    document.body.append(dlg);
    dlg.showModal();
    input.focus();
  });
}
