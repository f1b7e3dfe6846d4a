// A local HTTP server that plays the model provider for the capture lanes: the OpenAI Responses
// API (POST …/responses), Chat Completions (POST …/chat/completions) and the Gemini API
// (POST …/models/<model>:generateContent). The first request of a fixture gets a call to
// fixture_tool, every later one a final text answer; every request body is recorded as sent.
import { createServer } from 'node:http';

export const CALL_ID = 'call_fixture_1';
const TEXT = 'Done.';

const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 };

function responsesAnswer(n, body) {
  const output = n === 1
    ? [{ type: 'function_call', id: 'fc_fixture_1', call_id: CALL_ID, name: 'fixture_tool', arguments: '{}', status: 'completed' }]
    : [{ type: 'message', id: 'msg_fixture_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: TEXT, annotations: [], logprobs: [] }] }];
  return {
    id: `resp_fixture_${n}`, object: 'response', created_at: 1700000000, status: 'completed',
    model: body?.model ?? 'gpt-4.1', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [],
    error: null, incomplete_details: null, instructions: null, metadata: {}, temperature: 1, top_p: 1,
    text: { format: { type: 'text' } }, usage,
  };
}

function chatAnswer(n, body) {
  const message = n === 1
    ? { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: CALL_ID, type: 'function', function: { name: 'fixture_tool', arguments: '{}' } }] }
    : { role: 'assistant', content: TEXT, refusal: null };
  return {
    id: `chatcmpl-fixture-${n}`, object: 'chat.completion', created: 1700000000, model: body?.model ?? 'gpt-4.1',
    choices: [{ index: 0, message, logprobs: null, finish_reason: n === 1 ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function geminiAnswer(n, model) {
  const parts = n === 1 ? [{ functionCall: { name: 'fixture_tool', args: {} } }] : [{ text: TEXT }];
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: model, responseId: `resp-fixture-${n}`,
  };
}

/** startProvider listens on 127.0.0.1 and resolves to {url, bodies(), requests(), reset(), close()}. */
export function startProvider() {
  let bodies = [];
  let requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      bodies.push(raw);
      requests.push(`${req.method} ${req.url}`);
      const n = bodies.length;
      let body;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const path = (req.url ?? '').split('?')[0];
      let answer;
      if (req.method === 'POST' && path.endsWith('/responses')) answer = responsesAnswer(n, body);
      else if (req.method === 'POST' && path.endsWith('/chat/completions')) answer = chatAnswer(n, body);
      else if (req.method === 'POST' && /\/models\/[^/]+:generateContent$/.test(path)) {
        answer = geminiAnswer(n, decodeURIComponent(path.replace(/^.*\/models\/([^/:]+):generateContent$/, '$1')));
      }
      if (!answer) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake provider: no route for ${req.method} ${req.url}` } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        bodies: () => bodies.slice(),
        requests: () => requests.slice(),
        reset: () => {
          bodies = [];
          requests = [];
        },
        close: () => new Promise((r) => {
          server.closeAllConnections?.();
          server.close(() => r());
        }),
      });
    });
  });
}
