// What every lane script shares: its command line, the installed framework version, temporary
// call logs for the raw server, a per-fixture time bound and the final network check.
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { refusals } from './guard.mjs';
import { h4 } from './h4.mjs';
import { startProvider } from './provider.mjs';
import { fixtures, Writer } from './record.mjs';

export const JS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER = join(JS_DIR, 'lib', 'rawmcp-server.mjs');
export const PER_FIXTURE_MS = 30_000;

/**
 * The structured fixtures (families structured, structured-stress, structured-2026, numbers and
 * visibility, and X09): the only ones a configuration that changes only how structuredContent is carried is
 * applied to, as in the reconstructed Python lanes.
 */
export const STRUCTURED = new Set(['C01', 'C02', 'C03', 'C04', 'C05', 'C06', 'X01', 'X02', 'X03', 'X08', 'X09', 'X12', 'R09', 'V01', 'V02', 'V03', 'V04']);

/** installedVersion reads the version of an installed package from its package.json. */
export function installedVersion(name) {
  return JSON.parse(readFileSync(join(JS_DIR, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** options parses --fixtures, --repetition and --configuration, checking the configuration. */
export function options(configurations) {
  const { values } = parseArgs({
    options: {
      fixtures: { type: 'string', default: join(JS_DIR, '..', '..', '..', 'fixtures', 'sources') },
      repetition: { type: 'string', default: '1' },
      configuration: { type: 'string', default: 'default' },
      only: { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (!configurations.includes(values.configuration)) {
    throw new Error(`unknown configuration ${values.configuration} (have ${configurations.join(', ')})`);
  }
  const repetition = Number(values.repetition);
  if (!Number.isInteger(repetition) || repetition < 1) throw new Error(`bad --repetition ${values.repetition}`);
  let list = fixtures(values.fixtures);
  if (values.only) {
    const only = new Set(values.only.split(','));
    list = list.filter((f) => only.has(f.id));
  }
  return { fixtures: list, repetition, configuration: values.configuration, out: values.out };
}

/** callLog makes a file the raw server appends to for each tools/call; count() reads it. */
export function callLog() {
  const dir = mkdtempSync(join(tmpdir(), 'cc-calls-'));
  const path = join(dir, 'calls');
  return {
    path,
    count: () => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).length : 0),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** bounded runs fn, rejecting after ms: only a hang reaches the bound (the provider answers at once). */
export async function bounded(ms, fn) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([fn(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * writer makes the record writer of a lane run. Records are appended to the file `out` (frameworks
 * log to stdout, so stdout is no place for records); without one they go to stdout.
 */
export function writer(lane, laneVersion, configuration, repetition, out) {
  let sink = process.stdout;
  if (out) {
    const fd = openSync(out, 'a');
    sink = { write: (s) => writeSync(fd, s), close: () => closeSync(fd) };
  }
  return new Writer({ out: sink, lane, laneVersion, configuration, repetition });
}

/**
 * finish fails the process when the guard refused any connection, even one a framework caught:
 * nothing may leave the machine.
 */
export function finish() {
  const refused = refusals();
  if (refused.length > 0) {
    for (const r of refused) process.stderr.write(r + '\n');
    process.stderr.write('capture: a non-loopback connection was attempted; the records are void\n');
    process.exit(3);
  }
}

export function errorText(err) {
  if (err === undefined || err === null) return undefined;
  return err instanceof Error ? err.message : String(err);
}

/**
 * runLane is a lane run: the fixtures of the command line (options) captured one by one against
 * one fake provider, closed however the loop ends, then the network check (finish). Each fixture
 * is skipped when skip(f, configuration) says so; else the provider is reset and capture(f,
 * configuration, provider, server) runs the framework with server ({command, args}: the raw MCP
 * server serving f, logging its tools/call) as its stdio MCP server, resolving to {a2, m3,
 * runError} as far as the run gave them. The fixture is written: D1 not_observable (no framework
 * gives a window on the MCP result it receives), then A2, M3, and H4 (the tool output that
 * extract(configuration) picks out of the provider's second body) with the run's error
 * (Writer.stages). missing.a2(toolCalls) and missing.m3 say why A2 or M3 has no carrier.
 */
export async function runLane({ lane, version, configurations, capture, extract, missing, skip = () => false }) {
  const { fixtures: list, repetition, configuration, out } = options(configurations);
  const w = writer(lane, version, configuration, repetition, out);
  const provider = await startProvider();
  try {
    for (const f of list) {
      if (skip(f, configuration)) continue;
      provider.reset();
      const calls = callLog();
      let o, toolCalls;
      try {
        o = await capture(f, configuration, provider, { command: process.execPath, args: [SERVER, f.path, calls.path] });
        toolCalls = calls.count();
      } finally {
        calls.remove();
      }
      w.notObservable(f, 'D1');
      w.stages(f, [
        { stage: 'A2', carrier: o.a2, missing: missing.a2(toolCalls) },
        { stage: 'M3', carrier: o.m3, missing: missing.m3 },
        h4(provider.bodies(), extract(configuration)),
      ], errorText(o.runError));
    }
  } finally {
    await provider.close();
  }
  finish();
}
