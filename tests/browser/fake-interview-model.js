// A slow OpenAI-compatible model for the browser tests of the interview
// (issue 19): it plays every interview stage as internal/interview/interviewtest
// does, recognising the stage by the X-Aimeeting-Stage header the server
// sends, with a delay per stage so that the page's progress can be seen, and
// a switch that makes a stage fail (HTTP 500) to show the page's failures.
import http from 'node:http';

const DIMENSIONS = ['correctness', 'completeness', 'logic', 'depth', 'clarity'];

const PROFILE = JSON.stringify({
  skills: ['Go', 'MySQL', 'Redis'],
  skillEvidence: [{ skill: 'Go', evidence: 'Go services' }],
  roleHypotheses: [{ target: 'backend engineer', evidence: 'Go services', confidence: '0.8' }],
  resumeScore: '72', resumeSuggestions: ['Quantify your impact.'], projectQuestionHints: ['payment service'], resumeType: 'backend',
});

function extraction() {
  const questions = [1, 2, 3, 4, 5].map((i) => ({
    content: `Question ${i}: how does topic ${i} work in your order service?`,
    anchors: [
      { name: `core idea ${i}`, weight: 60, core: true, acceptableStatements: [`explains topic ${i}`] },
      { name: 'trade-offs', weight: 40, core: false, acceptableStatements: ['names a trade-off'] },
    ],
    commonMistakes: ['confuses it'], followUpStrategy: `What would you change for topic ${i}?`, rubricVersion: 1,
  }));
  return JSON.stringify({ questions, suggestions: ['Add links to code.'], interviewType: 'backend engineer', resumeScore: 75 });
}

/** The evaluation of an answer: every dimension met (score 88), partial when the answer says WEAK, without evidence when it says VAGUE. */
function evaluation(input) {
  const weak = /WEAK/.test(input.answer || '');
  // VAGUE: no dimension has evidence, so the server hides the score.
  const evidence = /VAGUE/.test(input.answer || '') ? '' : 'said so';
  const anchor = input.question && input.question.anchors && input.question.anchors[0] ? input.question.anchors[0].name : 'core idea';
  return JSON.stringify({
    result: {
      dimensions: DIMENSIONS.map((id) => ({ id, status: weak && (id === 'completeness' || id === 'depth') ? 'partial' : 'met', evidence, confidence: 0.95 })),
      anchors: [{ name: anchor, status: weak ? 'partial' : 'met', evidence: 'e' }, { name: 'trade-offs', status: 'met', evidence: 'e' }],
      score: 88,
      feedback: 'Clear answer about the topic: you named the design and its trade-offs. Add a measured result next time.',
      missingPoints: ['an example'],
    },
  });
}

function text(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && p.type === 'text' ? p.text : '')).join('');
  return '';
}

function reply(stage, body) {
  const msgs = body.messages || [];
  const last = msgs.length ? text(msgs[msgs.length - 1].content) : '';
  switch (stage) {
    case 'resume-profile-extraction': return PROFILE;
    case 'interview-extraction': return extraction();
    case 'interview-evaluation':
    case 'interview-review': {
      let input = {};
      try { input = JSON.parse(last); } catch { /* an answer without JSON input: judged as given */ }
      return evaluation(input);
    }
    case 'interview-followup': return JSON.stringify({ followUp: 'Could you go deeper into the core idea?', endInterview: false });
    case 'interview-demeanor': return JSON.stringify({ panicLevel: 8, seriousnessLevel: 9, emoticonHandling: 7, compositeScore: 8 });
    default: return 'Hello from the fake model.';
  }
}

/**
 * Starts the fake model on a loopback port. latency maps a stage to its
 * delay in ms. Resolves {baseURL, calls, fail(stage, on), close()}.
 */
export async function startFakeModel({ latency = {} } = {}) {
  const failing = new Set();
  const calls = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', () => {
      if (req.method === 'GET' && req.url.endsWith('/models')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-gpt', object: 'model' }] }));
        return;
      }
      let body = {};
      try { body = JSON.parse(raw || '{}'); } catch { /* answered as an empty request */ }
      const stage = String(req.headers['x-aimeeting-stage'] || '');
      calls.push(stage);
      const delay = latency[stage] ?? 0;
      setTimeout(() => {
        if (res.destroyed) return;
        if (failing.has(stage)) {
          res.writeHead(500, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error' } }));
          return;
        }
        const content = reply(stage, body);
        const model = body.model || 'fake-gpt';
        if (body.stream) {
          res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
          const ev = (delta, finish = null) => res.write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
          ev({ role: 'assistant', content: '' });
          for (const part of content.match(/.{1,40}/gs) || []) ev({ content: part });
          ev({}, 'stop');
          res.end('data: [DONE]\n\n');
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({
          id: 'chatcmpl-fake', object: 'chat.completion', created: 0, model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }));
      }, delay);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    calls,
    fail(stage, on) { if (on) failing.add(stage); else failing.delete(stage); },
    close() { server.closeAllConnections?.(); return new Promise((r) => server.close(r)); },
  };
}

/** The server's environment for the fake model at baseURL (vision on: the camera is offered). */
export function fakeModelEnv(baseURL, { vision = true } = {}) {
  return {
    AI_PROVIDER: 'openai', AI_OPENAI_BASE_URL: baseURL, AI_OPENAI_API_KEY: 'sk-fake-browser-test',
    AI_OPENAI_MODEL: 'fake-gpt', AI_OPENAI_VISION: vision ? 'true' : 'false',
  };
}
