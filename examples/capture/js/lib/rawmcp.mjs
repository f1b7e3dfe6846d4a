// A raw MCP server for the capture lanes (no SDK, so nothing re-encodes the fixture on the server
// side): the Node port of examples/internal/rawmcp. It speaks newline-delimited JSON-RPC (the stdio
// transport's framing), answers initialize, ping and tools/list, and answers every tools/call with
// the fixture's W0 bytes compacted to one line (insignificant whitespace only: numbers, escapes
// and key order are kept as written). A fixture that is itself a JSON-RPC response envelope is
// served as that envelope's result or error member under the request's id. server/discover and
// every other method get -32601.
import { createInterface } from 'node:readline';

export const TOOL_NAME = 'fixture_tool';

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * compact removes the insignificant whitespace of JSON text (a Buffer or string) and returns the
 * remaining bytes unchanged, as Go's json.Compact does. It throws when the text is not JSON.
 */
export function compact(fixture) {
  const src = Buffer.isBuffer(fixture) ? fixture : Buffer.from(fixture, 'utf8');
  JSON.parse(src.toString('utf8')); // validates; the bytes below are what is served
  const out = Buffer.alloc(src.length);
  let n = 0;
  let inString = false;
  for (let i = 0; i < src.length; i++) {
    const b = src[i];
    if (inString) {
      out[n++] = b;
      if (b === 0x5c) {
        out[n++] = src[++i]; // the escaped byte, whatever it is
      } else if (b === 0x22) {
        inString = false;
      }
    } else if (!WS.has(b)) {
      out[n++] = b;
      if (b === 0x22) inString = true;
    }
  }
  return out.subarray(0, n);
}

// skipValue returns the index just past the compact JSON value starting at i.
function skipValue(buf, i) {
  const b = buf[i];
  if (b === 0x22) {
    for (i++; buf[i] !== 0x22; i++) if (buf[i] === 0x5c) i++;
    return i + 1;
  }
  if (b === 0x7b || b === 0x5b) {
    let depth = 0;
    let inString = false;
    for (; i < buf.length; i++) {
      const c = buf[i];
      if (inString) {
        if (c === 0x5c) i++;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    throw new Error('unterminated JSON value');
  }
  while (i < buf.length && buf[i] !== 0x2c && buf[i] !== 0x7d && buf[i] !== 0x5d) i++;
  return i;
}

/** members lists the top-level members of a compact JSON object as [key, raw value bytes]. */
export function members(buf) {
  const out = [];
  if (buf[0] !== 0x7b) return out;
  let i = 1;
  while (i < buf.length && buf[i] !== 0x7d) {
    const keyEnd = skipValue(buf, i);
    const key = JSON.parse(buf.subarray(i, keyEnd).toString('utf8'));
    const valStart = keyEnd + 1; // past ':'
    const valEnd = skipValue(buf, valStart);
    out.push([key, buf.subarray(valStart, valEnd)]);
    i = buf[valEnd] === 0x2c ? valEnd + 1 : valEnd;
  }
  return out;
}

/**
 * response returns the JSON-RPC response line (a Buffer, no newline) a tools/call with the given
 * raw id gets for a fixture: the fixture as the result or, for an envelope, its own result or
 * error member. As in the Go server, the last of duplicate members wins.
 */
export function response(fixture, rawId) {
  const body = compact(fixture);
  const env = new Map(members(body));
  let member = 'result';
  let value = body;
  if (env.has('jsonrpc')) {
    if (env.has('error')) {
      member = 'error';
      value = env.get('error');
    } else {
      value = env.get('result');
    }
  }
  return Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${rawId},"${member}":`), value, Buffer.from('}')]);
}

// rawIdOf returns the request id's JSON text as the request wrote it.
function rawIdOf(line) {
  const buf = compact(line);
  for (const [k, v] of members(buf)) if (k === 'id') return v.toString('utf8');
  return undefined;
}

/** answer returns the response line for one request line, or null for a notification. */
export function answer(fixture, line, onCall) {
  const req = JSON.parse(line);
  if (req === null || typeof req !== 'object' || !('id' in req) || typeof req.method !== 'string') {
    return null; // a notification, or a response to nothing we asked
  }
  const id = rawIdOf(line);
  const result = (v) => Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":${v}}`);
  switch (req.method) {
    case 'initialize': {
      const v = typeof req.params?.protocolVersion === 'string' && req.params.protocolVersion !== ''
        ? req.params.protocolVersion
        : '2025-11-25'; // accept what the client speaks: the result is what is measured
      return result(`{"protocolVersion":${JSON.stringify(v)},"capabilities":{"tools":{}},"serverInfo":{"name":"contractcheck-fixture","version":"1"}}`);
    }
    case 'ping':
      return result('{}');
    case 'tools/list':
      return result(`{"tools":[{"name":"${TOOL_NAME}","description":"Returns the fixture result.","inputSchema":{"type":"object","properties":{}}}]}`);
    case 'tools/call':
      onCall?.();
      return response(fixture, id);
  }
  return Buffer.from(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":${JSON.stringify('method not found: ' + req.method)}}}`);
}

/** serve answers newline-delimited requests from input on output until input ends. */
export function serve(fixture, input, output, onCall) {
  const rl = createInterface({ input, crlfDelay: Infinity });
  rl.on('line', (line) => {
    if (line.trim() === '') return;
    const resp = answer(fixture, line, onCall);
    if (resp) output.write(Buffer.concat([resp, Buffer.from('\n')]));
  });
  return new Promise((resolve) => rl.on('close', resolve));
}
