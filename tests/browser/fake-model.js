// A fake streaming OpenAI-compatible model for the chat browser tests: its
// answer depends on the last user message ("markdown", "payload", "stall",
// "hang", else "Answer number N." counting up); non-streamed requests (the
// admin's connection test) get "OK".
import http from 'node:http';

let answers = 0;

export const MARKDOWN = [
  'Here is a **short comparison** of two languages:\n\n',
  '| Language | Typing | Since |\n| --- | --- | --- |\n',
  '| Go | static | 2009 |\n| Python | dynamic | 1991 |\n\n',
  'And a snippet:\n\n```go\nfmt.Println("hello, index")\n```\n\n',
  'Use `go vet` before committing.',
];
export const MARKDOWN_ZH = [
  '下面用**表格**比较两种语言：\n\n',
  '| 语言 | 类型系统 | 发布年份 |\n| --- | --- | --- |\n',
  '| Go | 静态类型 | 2009 |\n| Python | 动态类型 | 1991 |\n\n',
  '示例代码：\n\n```go\nfmt.Println("你好，索引")\n```\n\n',
  '提交前先运行 `go vet`。',
];
export const PAYLOAD = [
  'Careful with this: <script>window.__pwned = "script"</script>\n\n',
  '<img src=x onerror="window.__pwned = \'img\'">\n\n',
  '[click me](javascript:window.__pwned=\'link\') and ![pic](http://127.0.0.1:1/x.png)\n\n',
  '<a href="#" onclick="window.__pwned=\'click\'">inline link</a> done.',
];

/** Writes an OpenAI chat.completion.chunk stream: chunks with pauses (ms) between them. */
function streamAnswer(req, res, steps) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const chunk = (content) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  let i = 0;
  let timer = null;
  res.on('close', () => clearTimeout(timer)); // the client went away (req 'close' only means the body was read)
  const next = () => {
    if (res.destroyed) return;
    if (i >= steps.length) {
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    const [text, pause] = steps[i++];
    if (text === null) return; // hang: never another byte
    res.write(chunk(text));
    timer = setTimeout(next, pause);
  };
  next();
}

/** The fake model: what it answers depends on the last user message. */
export function startModel() {
  return new Promise((resolve) => {
    const srv = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => {
        let j = {};
        try { j = JSON.parse(body); } catch { /* empty */ }
        const msgs = j.messages || [];
        const last = [...msgs].reverse().find((m) => m.role === 'user');
        const text = typeof last?.content === 'string' ? last.content : (last?.content || []).map((p) => p.text || '').join('');
        if (!j.stream) {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'fake', choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }));
          return;
        }
        if (/表格/.test(text)) streamAnswer(req, res, MARKDOWN_ZH.map((c) => [c, 30]));
        else if (/markdown/i.test(text)) streamAnswer(req, res, MARKDOWN.map((c) => [c, 30]));
        else if (/payload/i.test(text)) streamAnswer(req, res, PAYLOAD.map((c) => [c, 20]));
        else if (/stall/i.test(text)) streamAnswer(req, res, [['Thinking about it', 2600], [' — here is the answer after a pause.', 10]]);
        else if (/hang/i.test(text)) streamAnswer(req, res, [['The first words of a long answer', 10], [null, 0]]);
        else {
          answers += 1;
          streamAnswer(req, res, [[`Answer number ${answers}.`, 10]]);
        }
      });
    });
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  });
}

