// Messages of voice input (speech.js).
import { addMessages } from '../i18n.js';

addMessages({
  en: {
    'sp.lang.zh-CN': 'Chinese',
    'sp.lang.en': 'English',
    'sp.or': ' or ',
    'sp.and': ' and ',
    'sp.none': 'Speech recognition is not available on this server. Type your answer.',
    'sp.only': 'This server\'s speech recogniser understands {langs} only. Type your answer, or choose {choose}.',
    'sp.noMic': 'This browser cannot record audio here (a secure https:// page is needed).',
    'sp.denied': 'Microphone access was denied — allow it in the browser to answer by voice.',
    'sp.cannotOpen': 'Cannot open the microphone: {msg}',
    'sp.listening': 'Listening…',
    'sp.transcribed': 'Transcribed.',
    'sp.error': 'transcription error',
    'sp.refused': 'The speech service refused the connection (not logged in?).',
    'sp.cannotConnect': 'Cannot connect to the speech service.',
  },
  'zh-CN': {
    'sp.lang.zh-CN': '中文',
    'sp.lang.en': '英语',
    'sp.or': '或',
    'sp.and': '和',
    'sp.none': '此服务器不支持语音识别，请打字回答。',
    'sp.only': '此服务器的语音识别只能识别{langs}。请打字回答，或选择{choose}。',
    'sp.noMic': '此浏览器在这里无法录音（需要安全的 https:// 页面）。',
    'sp.denied': '麦克风访问被拒绝，请在浏览器中允许后再用语音回答。',
    'sp.cannotOpen': '无法打开麦克风：{msg}',
    'sp.listening': '正在聆听…',
    'sp.transcribed': '已转写。',
    'sp.error': '转写出错',
    'sp.refused': '语音服务拒绝了连接（是否未登录？）。',
    'sp.cannotConnect': '无法连接语音服务。',
  },
});
