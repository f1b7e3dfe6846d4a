// A raw MCP server (no SDK), for the reproduction: node rawmcp-server.mjs W0.json serves W0.json
// over stdio, newline-delimited JSON-RPC. It answers initialize, ping and tools/list, and every
// tools/call with the file compacted to one line (insignificant whitespace only: numbers, escapes
// and key order are kept as written); a file that is a JSON-RPC response envelope is answered with
// its own result or error member. Every other method gets -32601.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const TOOL = 'fixture_tool';
const fixture = compact(readFileSync(process.argv[2]));

// compact removes the whitespace outside strings, byte for byte.
function compact(src) {
  JSON.parse(src.toString('utf8'));
  const out = [];
  let inString = false;
  for (let i = 0; i < src.length; i++) {
    const b = src[i];
    if (inString) {
      out.push(b);
      if (b === 0x5c) out.push(src[++i]);
      else if (b === 0x22) inString = false;
    } else if (![0x20, 0x09, 0x0a, 0x0d].includes(b)) {
      out.push(b);
      if (b === 0x22) inString = true;
    }
  }
  return Buffer.from(out);
}

// member returns the bytes of a top-level member's value in compact JSON, or undefined.
function member(buf, name) {
  const key = Buffer.from(JSON.stringify(name) + ':');
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x22) {
      if (depth === 1 && buf.subarray(i, i + key.length).equals(key)) return buf.subarray(i + key.length, end(buf, i + key.length));
      inString = true;
    }
  }
  return undefined;
}

// end returns the index just past the compact JSON value starting at i.
function end(buf, i) {
  let depth = 0;
  let inString = false;
  for (let j = i; j < buf.length; j++) {
    const c = buf[j];
    if (inString) {
      if (c === 0x5c) j++;
      else if (c === 0x22) {
        inString = false;
        if (depth === 0) return j + 1;
      }
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return j + 1;
    } else if (depth === 0 && (c === 0x2c || c === 0x7d)) return j;
  }
  return buf.length;
}

function answer(req) {
  const id = JSON.stringify(req.id);
  const result = (v) => `{"jsonrpc":"2.0","id":${id},"result":${v}}`;
  switch (req.method) {
    case 'initialize':
      return result(JSON.stringify({ protocolVersion: req.params?.protocolVersion ?? '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'repro', version: '1' } }));
    case 'ping':
      return result('{}');
    case 'tools/list':
      return result(JSON.stringify({ tools: [{ name: TOOL, description: 'Returns the fixture result.', inputSchema: { type: 'object', properties: {} } }] }));
    case 'tools/call': {
      const doc = JSON.parse(fixture.toString('utf8'));
      if (doc && typeof doc === 'object' && 'jsonrpc' in doc) {
        const which = 'error' in doc ? 'error' : 'result';
        return `{"jsonrpc":"2.0","id":${id},"${which}":${member(fixture, which).toString('utf8')}}`;
      }
      return `{"jsonrpc":"2.0","id":${id},"result":${fixture.toString('utf8')}}`;
    }
  }
  return JSON.stringify({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: `method not found: ${req.method}` } });
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  if (req.id === undefined || req.id === null) continue;
  process.stdout.write(answer(req) + '\n');
}
