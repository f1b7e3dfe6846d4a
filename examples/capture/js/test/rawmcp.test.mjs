// The raw MCP server serves each fixture's W0 bytes exactly: the fixture with its insignificant
// whitespace removed and nothing else changed (numbers, escapes, key order as written).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { compact } from '../lib/rawmcp.mjs';
import { fixtures } from '../lib/record.mjs';
import { JS_DIR, SERVER } from '../lib/lane.mjs';

const SOURCES = join(JS_DIR, '..', '..', '..', 'fixtures', 'sources');
const all = fixtures(SOURCES);

// whitespaceOnly removes JSON whitespace outside strings by another method than compact(): a
// regular expression over the text that keeps every string token whole.
function whitespaceOnly(text) {
  return text.replace(/"(?:[^"\\]|\\.)*"|[ \t\n\r]+/g, (m) => (m[0] === '"' ? m : ''));
}

// topLevel returns the text of a top-level member of compact JSON object text, by regular
// expressions over its tokens (strings whole, brackets counted).
function topLevel(text, key) {
  const tokens = text.match(/"(?:[^"\\]|\\.)*"|[{}[\]:,]|[^{}[\]:,"]+/g);
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (depth === 1 && t === JSON.stringify(key) && tokens[i + 1] === ':') {
      let j = i + 2;
      let d = 0;
      let out = '';
      for (; j < tokens.length; j++) {
        const u = tokens[j];
        if (d === 0 && (u === ',' || u === '}')) break;
        if (u === '{' || u === '[') d++;
        if (u === '}' || u === ']') d--;
        out += u;
      }
      return out;
    }
    if (t === '{' || t === '[') depth++;
    if (t === '}' || t === ']') depth--;
  }
  return undefined;
}

// expected is the answer a tools/call with this id must get: the compacted fixture as the result,
// or an envelope fixture's own error (else result) member.
function expected(f, id) {
  const text = whitespaceOnly(f.bytes.toString('utf8'));
  if (topLevel(text, 'jsonrpc') !== undefined) {
    const member = topLevel(text, 'error') !== undefined ? 'error' : 'result';
    return `{"jsonrpc":"2.0","id":${id},"${member}":${topLevel(text, member)}}`;
  }
  return `{"jsonrpc":"2.0","id":${id},"result":${text}}`;
}

// talk starts the server on a fixture, sends the request lines and collects one answer per
// request that has an id.
async function talk(fixturePath, requests, callsFile) {
  const proc = spawn(process.execPath, [SERVER, fixturePath, ...(callsFile ? [callsFile] : [])], { stdio: ['pipe', 'pipe', 'inherit'] });
  const want = requests.filter((r) => 'id' in JSON.parse(r)).length;
  const lines = [];
  const rl = createInterface({ input: proc.stdout });
  const done = new Promise((resolve) => {
    rl.on('line', (l) => {
      lines.push(l);
      if (lines.length === want) resolve();
    });
  });
  for (const r of requests) proc.stdin.write(r + '\n');
  await done;
  proc.stdin.end();
  await new Promise((r) => proc.on('close', r));
  return lines;
}

test('compact removes only insignificant whitespace', () => {
  const src = Buffer.from('{ "a" : [ 1.50 , 2e+3 , -0 ] ,\n\t"s" : "x  y\\"  \\u00e9 \\\\" , "n":12345678901234567891 }\r\n');
  assert.equal(compact(src).toString(), '{"a":[1.50,2e+3,-0],"s":"x  y\\"  \\u00e9 \\\\","n":12345678901234567891}');
  assert.equal(compact(src).toString(), whitespaceOnly(src.toString()));
  assert.throws(() => compact('{"a":'), SyntaxError);
});

test('every fixture is served exactly as its whitespace-compacted bytes', async () => {
  assert.ok(all.length >= 30, `only ${all.length} fixtures`);
  let envelopes = 0;
  for (const f of all) {
    const [line] = await talk(f.path, ['{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fixture_tool","arguments":{}}}']);
    const want = expected(f, 7);
    assert.equal(line, want, `${f.id}: served bytes`);
    const doc = JSON.parse(f.bytes);
    if ('jsonrpc' in doc) {
      envelopes++;
      const served = JSON.parse(line);
      assert.deepEqual('error' in doc ? served.error : served.result, 'error' in doc ? doc.error : doc.result, f.id);
    } else {
      assert.deepEqual(JSON.parse(line).result, doc, f.id);
    }
  }
  assert.ok(envelopes >= 1, 'no envelope fixture was served');
});

test('large numbers and escapes reach the wire as written', async () => {
  const f = all.find((x) => x.id === 'X08');
  const [line] = await talk(f.path, ['{"jsonrpc":"2.0","id":"s-1","method":"tools/call","params":{"name":"fixture_tool"}}']);
  const literals = f.bytes.toString('utf8').match(/-?\d{17,}|\d\.\d+E-\d+/g);
  assert.ok(literals && literals.length >= 2, 'X08 holds long number literals');
  for (const literal of literals) assert.ok(line.includes(literal), `served X08 keeps ${literal}`);
  assert.ok(line.startsWith('{"jsonrpc":"2.0","id":"s-1","result":'));
});

test('the server answers the handshake, lists the tool, refuses other methods and counts calls', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rawmcp-test-'));
  try {
    const calls = join(dir, 'calls');
    const f = all.find((x) => x.id === 'C09');
    const lines = await talk(f.path, [
      '{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}',
      '{"jsonrpc":"2.0","id":3,"method":"ping"}',
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fixture_tool","arguments":{}}}',
      '{"jsonrpc":"2.0","id":5,"method":"resources/list"}',
      '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"fixture_tool","arguments":{}}}',
    ], calls);
    const byId = Object.fromEntries(lines.map((l) => [JSON.parse(l).id, JSON.parse(l)]));
    assert.equal(byId[0].error.code, -32601);
    assert.equal(byId[1].result.protocolVersion, '2025-06-18');
    assert.deepEqual(byId[2].result.tools.map((t) => t.name), ['fixture_tool']);
    assert.deepEqual(byId[3].result, {});
    assert.equal(byId[5].error.code, -32601);
    assert.deepEqual(byId[4].result, JSON.parse(f.bytes));
    assert.equal(readFileSync(calls, 'utf8'), 'tools/call\ntools/call\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
