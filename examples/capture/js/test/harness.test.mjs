// The capture harness around the frameworks: the fake provider's script, the H4 extractors and
// the record writer. A provider body that lacks the tool output is an execution failure of the
// capture, never a captured carrier (and so never a pass).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { chatToolMessage, geminiFunctionResponse, h4, responsesToolOutput } from '../lib/h4.mjs';
import { CALL_ID, startProvider } from '../lib/provider.mjs';
import { Writer } from '../lib/record.mjs';

const fixture = { id: 'C09', sha256: 'ab'.repeat(32) };

function records(fn) {
  const lines = [];
  const w = new Writer({ out: { write: (s) => lines.push(s) }, lane: 'test-lane', laneVersion: '1.0.0', configuration: 'default', repetition: 2 });
  fn(w);
  assert.ok(lines.every((l) => l.endsWith('\n')));
  return lines.map((l) => JSON.parse(l));
}

test('records have the fields of examples/internal/record, in its order', () => {
  const [captured, failed, notReached, notObservable] = records((w) => {
    w.captured(fixture, 'A2', { output: '<&>', n: 1 });
    w.failed(fixture, 'M3', new Error('boom'));
    w.notReached(fixture, 'H4');
    w.notObservable(fixture, 'D1');
  });
  assert.deepEqual(Object.keys(captured), ['fixture', 'lane', 'laneVersion', 'configuration', 'stage', 'repetition', 'state', 'carrier', 'sourceSha256', 'origin']);
  assert.deepEqual(Object.keys(failed), ['fixture', 'lane', 'laneVersion', 'configuration', 'stage', 'repetition', 'state', 'error', 'sourceSha256', 'origin']);
  assert.deepEqual(Object.keys(notReached), ['fixture', 'lane', 'laneVersion', 'configuration', 'stage', 'repetition', 'state', 'sourceSha256', 'origin']);
  assert.equal(captured.origin, 'captured');
  assert.equal(captured.repetition, 2);
  assert.deepEqual(captured.carrier, { output: '<&>', n: 1 });
  assert.equal(failed.error, 'boom');
  assert.equal(notObservable.state, 'not_observable');
  // Go's encoding/json escapes <, > and & in strings; so does the JS writer
  const raw = [];
  new Writer({ out: { write: (s) => raw.push(s) }, lane: 'l', laneVersion: 'v', configuration: 'c', repetition: 1 }).captured(fixture, 'A2', { s: '<&>' });
  assert.ok(raw[0].includes('"\\u003c\\u0026\\u003e"'));
});

const bodies = {
  responses: {
    with: { model: 'm', input: [{ role: 'user', content: 'x' }, { type: 'function_call', call_id: CALL_ID, name: 'fixture_tool', arguments: '{}' }, { type: 'function_call_output', call_id: CALL_ID, output: 'hello' }] },
    without: { model: 'm', input: [{ role: 'user', content: 'x' }, { type: 'function_call', call_id: CALL_ID, name: 'fixture_tool', arguments: '{}' }] },
    extract: responsesToolOutput,
  },
  chat: {
    with: { model: 'm', messages: [{ role: 'user', content: 'x' }, { role: 'assistant', tool_calls: [] }, { role: 'tool', tool_call_id: CALL_ID, content: 'hello' }] },
    without: { model: 'm', messages: [{ role: 'user', content: 'x' }, { role: 'assistant', tool_calls: [] }] },
    extract: chatToolMessage,
  },
  gemini: {
    with: { contents: [{ role: 'user', parts: [{ text: 'x' }] }, { role: 'model', parts: [{ functionCall: { name: 'fixture_tool', args: {} } }] }, { role: 'user', parts: [{ functionResponse: { name: 'fixture_tool', response: { output: 'hello' } } }] }] },
    without: { contents: [{ role: 'user', parts: [{ text: 'x' }] }, { role: 'model', parts: [{ functionCall: { name: 'fixture_tool', args: {} } }] }, { role: 'user', parts: [{ text: 'hello' }] }] },
    extract: geminiFunctionResponse,
  },
};

for (const [api, b] of Object.entries(bodies)) {
  test(`${api}: a body with the tool output gives the H4 carrier`, () => {
    const first = JSON.stringify({ first: true });
    const got = h4([first, JSON.stringify(b.with)], b.extract);
    assert.equal(got.stage, 'H4');
    assert.equal(got.missing, undefined);
    assert.ok(JSON.stringify(got.carrier).includes('hello'));
  });

  test(`${api}: a body missing the tool output is execution_failed, not captured`, () => {
    const got = h4([JSON.stringify({}), JSON.stringify(b.without)], b.extract);
    assert.equal(got.carrier, undefined);
    assert.match(got.missing, /has no /);
    const recs = records((w) => w.stages(fixture, [
      { stage: 'A2', carrier: { output: 'hello' }, missing: 'no A2' },
      { stage: 'M3', carrier: { output: 'hello' }, missing: 'no M3' },
      got,
    ]));
    assert.deepEqual(recs.map((r) => [r.stage, r.state]), [['A2', 'captured'], ['M3', 'captured'], ['H4', 'execution_failed']]);
    assert.equal(recs[2].carrier, undefined);
    assert.match(recs[2].error, /the provider request body has no/);
  });
}

test('no second request at all is execution_failed too, and later stages are not_reached', () => {
  const got = h4([JSON.stringify(bodies.chat.without)], chatToolMessage);
  assert.match(got.missing, /no request after the tool call/);
  const recs = records((w) => w.stages(fixture, [
    { stage: 'A2', carrier: undefined, missing: 'no ToolMessage' },
    { stage: 'M3', carrier: { x: 1 }, missing: 'no M3' },
    got,
  ], new Error('run failed')));
  assert.deepEqual(recs.map((r) => r.state), ['execution_failed', 'not_reached', 'not_reached']);
  assert.equal(recs[0].error, 'no ToolMessage: run failed');
});

test('the fake provider calls the tool first, then answers with text, and records every body', async () => {
  const p = await startProvider();
  try {
    const post = (path, body) => fetch(p.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
    const r1 = await post('/v1/responses', { model: 'gpt-4.1', input: [] });
    assert.equal(r1.output[0].type, 'function_call');
    assert.equal(r1.output[0].call_id, CALL_ID);
    const r2 = await post('/v1/responses', { model: 'gpt-4.1', input: [] });
    assert.equal(r2.output[0].type, 'message');
    assert.equal(p.bodies().length, 2);
    p.reset();
    const c1 = await post('/v1/chat/completions', { model: 'gpt-4.1', messages: [] });
    assert.equal(c1.choices[0].message.tool_calls[0].function.name, 'fixture_tool');
    const c2 = await post('/v1/chat/completions', { model: 'gpt-4.1', messages: [] });
    assert.equal(c2.choices[0].message.content, 'Done.');
    p.reset();
    const g1 = await post('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [] });
    assert.deepEqual(g1.candidates[0].content.parts[0], { functionCall: { name: 'fixture_tool', args: {} } });
    const g2 = await post('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [] });
    assert.equal(g2.candidates[0].content.parts[0].text, 'Done.');
    assert.deepEqual(p.bodies().map((b) => JSON.parse(b)), [{ contents: [] }, { contents: [] }]);
    const missing = await fetch(p.url + '/v1/embeddings', { method: 'POST', body: '{}' });
    assert.equal(missing.status, 404);
  } finally {
    await p.close();
  }
});

test('runLane writes D1 not_observable, then A2, M3 and H4 for each fixture not skipped, with the missing reasons', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-runlane-'));
  try {
    mkdirSync(join(dir, 'fixtures', 'suite'), { recursive: true });
    for (const id of ['C01', 'C02', 'Z09']) writeFileSync(join(dir, 'fixtures', 'suite', `${id}.json`), '{"content":[]}');
    const lib = (name) => JSON.stringify(new URL(`../lib/${name}`, import.meta.url).href);
    const script = join(dir, 'lane.mjs');
    // C01 reaches every stage: the tool is called once and the provider sees the tool output;
    // C02 has no A2 (the run failed) and its provider, reset, saw nothing; Z09 is skipped.
    writeFileSync(script, `import { appendFileSync } from 'node:fs';
import { responsesToolOutput } from ${lib('h4.mjs')};
import { runLane, SERVER } from ${lib('lane.mjs')};
const seen = [];
const post = (provider, n) => fetch(provider.url + '/v1/responses', { method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }], n }) }).then((r) => r.json());
await runLane({
  lane: 'test-lane', version: '9.9.9', configurations: ['default', 'other'],
  capture: async (f, configuration, provider, server) => {
    seen.push([f.id, provider.bodies().length, server.command === process.execPath && server.args[0] === SERVER && server.args[1] === f.path]);
    if (f.id !== 'C01') return { runError: new Error('boom') };
    appendFileSync(server.args[2], 'call\\n');
    await post(provider, 1);
    await post(provider, 2);
    return { a2: { c: configuration }, m3: { m: 1 } };
  },
  extract: (configuration) => (configuration === 'other' ? responsesToolOutput : undefined),
  missing: { a2: (n) => 'no A2 (' + n + ' tools/call)', m3: 'no M3' },
  skip: (f) => f.id === 'Z09',
});
process.stderr.write(JSON.stringify(seen));
`);
    const out = join(dir, 'records.jsonl');
    const run = spawnSync(process.execPath, [script, '--fixtures', join(dir, 'fixtures'), '--configuration', 'other', '--repetition', '2', '--out', out], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stderr), [['C01', 0, true], ['C02', 0, true]]);
    const recs = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(recs.map((r) => [r.fixture, r.stage, r.state, r.error]), [
      ['C01', 'D1', 'not_observable', undefined],
      ['C01', 'A2', 'captured', undefined],
      ['C01', 'M3', 'captured', undefined],
      ['C01', 'H4', 'captured', undefined],
      ['C02', 'D1', 'not_observable', undefined],
      ['C02', 'A2', 'execution_failed', 'no A2 (0 tools/call): boom'],
      ['C02', 'M3', 'not_reached', undefined],
      ['C02', 'H4', 'not_reached', undefined],
    ]);
    assert.deepEqual(recs[1].carrier, { c: 'other' });
    assert.equal(recs[3].carrier.output, 'x');
    assert.ok(recs.every((r) => r.lane === 'test-lane' && r.laneVersion === '9.9.9' && r.configuration === 'other' && r.repetition === 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
