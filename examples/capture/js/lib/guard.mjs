// The network guard, loaded before anything else (node --import ./lib/guard.mjs, or imported
// first): every TCP connection, DNS query and UDP datagram to anything but the loopback interface
// throws. A refusal is also remembered in refusals(), so a harness can fail the whole capture
// even when a framework swallows the error (telemetry exporters do).
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';

const refused = [];

/** refusals lists the connections the guard refused in this process. */
export function refusals() {
  return refused.slice();
}

/**
 * telemetryOff sets the variables that turn the frameworks' tracing and telemetry off (the
 * OpenAI Agents SDK's tracing and its logging of model and tool data, LangChain and LangSmith
 * tracing, OpenTelemetry's SDK and exporters), so that no exporter even tries to leave the
 * machine. Call it before any framework is imported: the SDKs read them as they load.
 */
export function telemetryOff() {
  Object.assign(process.env, {
    OPENAI_AGENTS_DISABLE_TRACING: '1',
    OPENAI_AGENTS_DONT_LOG_MODEL_DATA: '1',
    OPENAI_AGENTS_DONT_LOG_TOOL_DATA: '1',
    LANGCHAIN_TRACING_V2: 'false',
    LANGCHAIN_TRACING: 'false',
    LANGSMITH_TRACING: 'false',
    LANGCHAIN_CALLBACKS_BACKGROUND: 'false',
    OTEL_SDK_DISABLED: 'true',
    OTEL_TRACES_EXPORTER: 'none',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  });
}

/** isLoopback reports whether a host name or address stays on this machine. */
export function isLoopback(host) {
  if (host === undefined || host === null || host === '') return true; // Node's default: localhost
  let h = String(host).toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h.startsWith('::ffff:')) h = h.slice(7);
  if (net.isIPv4(h)) return h.split('.')[0] === '127';
  if (net.isIPv6(h)) return /^(0{0,4}:){2,7}0{0,3}1$/.test(h) || h === '::1';
  return false;
}

function refuse(what, target) {
  const msg = `network guard: refused ${what} to ${target} (only loopback is allowed)`;
  refused.push(msg);
  const err = new Error(msg);
  err.code = 'ERR_NETWORK_GUARD';
  return err;
}

// net.Socket#connect: (options[, cb]) | (port[, host][, cb]) | (path[, cb]). tls.connect and
// every HTTP client (http, https, undici's fetch) end here.
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  let first = args[0];
  if (Array.isArray(first)) first = first[0]; // the internal normalized form [options, cb]
  let host;
  let port;
  if (first !== null && typeof first === 'object') {
    if (first.path !== undefined) return connect.apply(this, args); // a local socket or pipe
    host = first.host;
    port = first.port;
  } else if (typeof first === 'string' && !/^\d+$/.test(first)) {
    return connect.apply(this, args); // a path
  } else {
    port = first;
    host = typeof args[1] === 'string' ? args[1] : undefined;
  }
  if (!isLoopback(host)) throw refuse('a connection', `${host}:${port}`);
  return connect.apply(this, args);
};

// DNS: a name that is not loopback is never looked up (the query itself would leave the machine).
function guardLookup(obj, name) {
  const orig = obj[name];
  if (typeof orig !== 'function') return;
  obj[name] = function guardedLookup(hostname, ...rest) {
    if (!isLoopback(hostname)) {
      const err = refuse(`a DNS query (${name})`, hostname);
      const cb = rest[rest.length - 1];
      if (obj === dns.promises) return Promise.reject(err);
      if (typeof cb === 'function') {
        process.nextTick(cb, err);
        return undefined;
      }
      throw err;
    }
    return orig.call(this, hostname, ...rest);
  };
}
for (const obj of [dns, dns.promises]) {
  for (const name of Object.keys(obj)) {
    if (name === 'lookup' || name === 'lookupService' || name.startsWith('resolve') || name === 'reverse') {
      guardLookup(obj, name);
    }
  }
}
for (const proto of [dns.Resolver.prototype, dns.promises.Resolver.prototype]) {
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (name.startsWith('resolve') || name === 'reverse') guardLookup(proto, name);
  }
}

// UDP.
const send = dgram.Socket.prototype.send;
dgram.Socket.prototype.send = function guardedSend(...args) {
  const addr = args.find((a, i) => i > 0 && typeof a === 'string');
  if (addr !== undefined && !isLoopback(addr)) throw refuse('a datagram', addr);
  return send.apply(this, args);
};
const dconnect = dgram.Socket.prototype.connect;
dgram.Socket.prototype.connect = function guardedDgramConnect(port, address, ...rest) {
  if (typeof address === 'string' && !isLoopback(address)) throw refuse('a datagram connection', `${address}:${port}`);
  return dconnect.call(this, port, address, ...rest);
};
