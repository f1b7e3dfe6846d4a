// Tests of what the commands share and of the Anthropic agent's mapping (node --test, npm test);
// nothing here starts a framework or opens a connection.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { toAnthropicBlock, toolResult } from '../anthropic-agent.mjs';
import { splitWords } from '../lib/probe.mjs';
import { observe } from '../observe.mjs';

test('splitWords splits as sh does', () => {
  assert.deepEqual(splitWords(`/bin/contractcheck serve --stdio --probe http://127.0.0.1:1/r/ab/mcp`),
    ['/bin/contractcheck', 'serve', '--stdio', '--probe', 'http://127.0.0.1:1/r/ab/mcp']);
  assert.deepEqual(splitWords(`'/opt/my tools/cc' serve`), ['/opt/my tools/cc', 'serve']);
  assert.deepEqual(splitWords(`'it'\\''s' "a \\"b\\" \\$c \\d" e\\ f ''`), ["it's", 'a "b" $c \\d', 'e f', '']);
  assert.deepEqual(splitWords(`  a\t b\n`), ['a', 'b']);
  assert.throws(() => splitWords(`'open`), /unterminated '/);
  assert.throws(() => splitWords(`"open`), /unterminated "/);
});

test('MCP content blocks map to tool_result content the way the agent sends them', () => {
  assert.deepEqual(toAnthropicBlock({ type: 'text', text: 'hi', annotations: { priority: 1 } }), { type: 'text', text: 'hi' });
  assert.deepEqual(toAnthropicBlock({ type: 'image', data: 'AAAA', mimeType: 'image/png' }),
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } });
  assert.deepEqual(toAnthropicBlock({ type: 'resource', resource: { uri: 'file:///a', text: 'body' } }), { type: 'text', text: 'body' });
  const link = { type: 'resource_link', uri: 'https://example.com/a', name: 'a' };
  assert.deepEqual(toAnthropicBlock(link), { type: 'text', text: JSON.stringify(link) });
  assert.deepEqual(toolResult('toolu_1', { content: [{ type: 'text', text: 'no' }], isError: true, structuredContent: { a: 1 } }),
    { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'no' }], is_error: true });
  assert.deepEqual(toolResult('toolu_1', { content: [], isError: false }), { type: 'tool_result', tool_use_id: 'toolu_1', content: [] });
});

test('observe posts {stage, carrier, callId}, is a no-op without probe, and throws on a refusal', async () => {
  const seen = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push(JSON.parse(body));
      if (seen.length === 1) res.writeHead(204).end();
      else res.writeHead(400).end('observe: stage X: one of D1, A2, M3\n');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const saved = process.env.CONTRACTCHECK_OBSERVE_URL;
  try {
    delete process.env.CONTRACTCHECK_OBSERVE_URL;
    await observe('A2', { a: 1 }); // no probe: nothing sent
    process.env.CONTRACTCHECK_OBSERVE_URL = `http://127.0.0.1:${server.address().port}/r/t/observe`;
    await observe('A2', { a: 1 }, 'call_1');
    await assert.rejects(observe('X', {}), /refused the X carrier: 400 observe: stage X/);
    assert.deepEqual(seen, [{ stage: 'A2', carrier: { a: 1 }, callId: 'call_1' }, { stage: 'X', carrier: {} }]);
  } finally {
    if (saved === undefined) delete process.env.CONTRACTCHECK_OBSERVE_URL;
    else process.env.CONTRACTCHECK_OBSERVE_URL = saved;
    server.close();
  }
});
