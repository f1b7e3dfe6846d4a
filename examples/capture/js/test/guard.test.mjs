// The network guard refuses every non-loopback connection, DNS query and datagram before anything
// is sent. The real socket and resolver functions are replaced by recording stubs before the guard
// wraps them, so the test itself sends nothing even if the guard were broken.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import { test } from 'node:test';

const reached = [];
net.Socket.prototype.connect = function stubConnect(...args) {
  reached.push(['connect', args[0]]);
  return this;
};
dns.lookup = (host, ...rest) => {
  reached.push(['lookup', host]);
  const cb = rest[rest.length - 1];
  if (typeof cb === 'function') process.nextTick(cb, null, '127.0.0.1', 4);
};
dns.promises.lookup = async (host) => {
  reached.push(['lookup', host]);
  return { address: '127.0.0.1', family: 4 };
};
dgram.Socket.prototype.send = function stubSend(...args) {
  reached.push(['send', args]);
};

const { isLoopback, refusals, telemetryOff } = await import('../lib/guard.mjs');

test('isLoopback accepts loopback only', () => {
  for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', undefined, 'api.localhost']) assert.ok(isLoopback(h), String(h));
  for (const h of ['api.openai.com', 'generativelanguage.googleapis.com', '8.8.8.8', '10.0.0.1', '192.168.1.1', '::2', '2001:db8::1', '0.0.0.0', '128.0.0.1']) assert.ok(!isLoopback(h), h);
});

test('a non-loopback TCP connection throws before the socket is touched', () => {
  reached.length = 0;
  for (const target of [{ host: '203.0.113.7', port: 443 }, { host: 'api.openai.com', port: 443 }]) {
    assert.throws(() => net.connect(target), { code: 'ERR_NETWORK_GUARD' });
  }
  assert.throws(() => new net.Socket().connect(80, '198.51.100.1'), { code: 'ERR_NETWORK_GUARD' });
  assert.deepEqual(reached, []);
  net.connect({ host: '127.0.0.1', port: 9 });
  new net.Socket().connect(9, 'localhost');
  net.connect({ path: '/tmp/some.sock' });
  assert.equal(reached.length, 3, 'loopback and local sockets pass through');
});

test('fetch to a non-loopback host fails with the guard as its cause', async () => {
  reached.length = 0;
  await assert.rejects(fetch('http://203.0.113.9:8080/v1/responses', { method: 'POST', body: '{}' }), (err) => {
    let e = err;
    while (e && e.code !== 'ERR_NETWORK_GUARD') e = e.cause;
    return e !== undefined;
  });
  assert.deepEqual(reached.filter(([k]) => k === 'connect'), []);
});

test('DNS queries and datagrams to other hosts are refused', async () => {
  reached.length = 0;
  await new Promise((resolve) => {
    dns.lookup('api.openai.com', (err) => {
      assert.equal(err?.code, 'ERR_NETWORK_GUARD');
      resolve();
    });
  });
  await assert.rejects(dns.promises.lookup('oauth2.googleapis.com'), { code: 'ERR_NETWORK_GUARD' });
  await assert.rejects(dns.promises.resolve4('example.com'), { code: 'ERR_NETWORK_GUARD' });
  const sock = dgram.createSocket('udp4');
  assert.throws(() => sock.send(Buffer.from('x'), 53, '8.8.8.8'), { code: 'ERR_NETWORK_GUARD' });
  sock.close();
  assert.deepEqual(reached, []);
  await new Promise((resolve) => dns.lookup('localhost', () => resolve()));
  assert.deepEqual(reached, [['lookup', 'localhost']]);
});

test('every refusal is remembered, so a capture fails even when a framework swallows the error', () => {
  assert.ok(refusals().length >= 8);
  assert.ok(refusals().every((r) => r.startsWith('network guard: refused')));
});

test('telemetryOff turns tracing and telemetry off', () => {
  process.env.OTEL_SDK_DISABLED = 'false';
  delete process.env.OPENAI_AGENTS_DISABLE_TRACING;
  telemetryOff();
  assert.equal(process.env.OPENAI_AGENTS_DISABLE_TRACING, '1');
  assert.equal(process.env.LANGSMITH_TRACING, 'false');
  assert.equal(process.env.OTEL_SDK_DISABLED, 'true');
  assert.equal(process.env.OTEL_TRACES_EXPORTER, 'none');
});
