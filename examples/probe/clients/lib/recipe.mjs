// What the client recipes share (Node builtins only, no install): probe's environment read in one
// place, a throw-away home directory removed when the wrapper exits, and the client run as one
// child process with an argument array (no shell: probe's prompt, URLs and command line are data),
// its exit status passed on.
//
//   CONTRACTCHECK_MCP_URL       the MCP Streamable HTTP endpoint of this run (every recipe's default)
//   CONTRACTCHECK_MCP_COMMAND   a shell word list that starts the same server over stdio
//                               (PROBE_TRANSPORT=stdio, where a recipe supports it)
//   CONTRACTCHECK_PROMPT        the user prompt of the one headless turn
//   OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL, ANTHROPIC_BASE_URL and dummy API keys: the fake provider

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { constants } from 'node:os';

// need and splitWords are the probe agents' own (examples/probe/js/lib/words.mjs).
export { need, splitWords } from '../../js/lib/words.mjs';
import { need, splitWords } from '../../js/lib/words.mjs';

/** transport is PROBE_TRANSPORT (stdio or http); http when unset. */
export function transport() {
  const t = process.env.PROBE_TRANSPORT || 'http';
  if (t !== 'stdio' && t !== 'http') {
    process.stderr.write(`PROBE_TRANSPORT must be stdio or http, not ${JSON.stringify(t)}\n`);
    process.exit(2);
  }
  return t;
}

/** mcpCommand is CONTRACTCHECK_MCP_COMMAND as {command, args}. */
export function mcpCommand() {
  const [command, ...args] = splitWords(need('CONTRACTCHECK_MCP_COMMAND'));
  if (command === undefined) {
    process.stderr.write('CONTRACTCHECK_MCP_COMMAND is empty\n');
    process.exit(2);
  }
  return { command, args };
}

/** prompt is the user prompt of the turn. */
export function prompt() {
  return process.env.CONTRACTCHECK_PROMPT || `Call ${process.env.CONTRACTCHECK_TOOL || 'fixture_tool'}, then answer.`;
}

/**
 * agentEnv is what a wrapper that starts an agent of ours (run.mjs → agent.mjs) hands it, after
 * checking probe's environment (the fake provider's OPENAI_BASE_URL and OPENAI_API_KEY, and the
 * MCP server): <prefix>_RECIPE_TRANSPORT (stdio or http), <prefix>_RECIPE_MCP (the Streamable
 * HTTP URL, or the stdio command as JSON {command, args}: no shell) and <prefix>_RECIPE_PROMPT.
 * readAgentEnv is the agent's side.
 */
export function agentEnv(prefix) {
  need('OPENAI_BASE_URL');
  need('OPENAI_API_KEY');
  const mode = transport();
  return {
    [`${prefix}_RECIPE_TRANSPORT`]: mode,
    [`${prefix}_RECIPE_MCP`]: mode === 'stdio' ? JSON.stringify(mcpCommand()) : need('CONTRACTCHECK_MCP_URL'),
    [`${prefix}_RECIPE_PROMPT`]: prompt(),
  };
}

/**
 * readAgentEnv is an agent's side of agentEnv: {mode, payload, prompt, baseURL, apiKey}. An agent
 * started by hand (without its wrapper) exits 2 saying so.
 */
export function readAgentEnv(prefix, env = process.env) {
  const got = {
    mode: env[`${prefix}_RECIPE_TRANSPORT`],
    payload: env[`${prefix}_RECIPE_MCP`],
    prompt: env[`${prefix}_RECIPE_PROMPT`],
    baseURL: env.OPENAI_BASE_URL,
    apiKey: env.OPENAI_API_KEY,
  };
  if (!got.mode || !got.payload || got.prompt === undefined || !got.baseURL || !got.apiKey) {
    process.stderr.write('agent.mjs is started by run.mjs (under contractcheck probe), not by hand\n');
    process.exit(2);
  }
  return got;
}

let cleanups = [];

/**
 * home makes the throw-away home directory of this run under the system temp directory, with a
 * work directory (the client's cwd, so no project file of the caller's is read) and the XDG
 * directories inside it; it is removed when the wrapper exits, however it exits.
 */
export function home(client) {
  const dir = mkdtempSync(join(tmpdir(), `cc-${client}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  const h = {
    dir,
    work: join(dir, 'work'),
    config: join(dir, '.config'),
    data: join(dir, '.local', 'share'),
    state: join(dir, '.local', 'state'),
    cache: join(dir, '.cache'),
  };
  for (const d of [h.work, h.config, h.data, h.state, h.cache]) mkdirSync(d, { recursive: true });
  return h;
}

/** onCleanup adds f to what runs (first) when the wrapper exits. */
export function onCleanup(f) {
  cleanups.unshift(f);
}

function cleanup() {
  const fs = cleanups;
  cleanups = [];
  for (const f of fs) {
    try {
      f();
    } catch (e) {
      process.stderr.write(`cleanup: ${e.message}\n`);
    }
  }
}
process.on('exit', cleanup);

/** writeJSON writes v as JSON at path, making its directory. */
export function writeJSON(path, v) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(v, null, 2) + '\n', { mode: 0o600 });
}

/** writeText writes s at path, making its directory. */
export function writeText(path, s) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, s, { mode: 0o600 });
}

/** binOf is the path of package pkg's bin entry name, under the recipe directory's node_modules. */
export function binOf(recipeDir, pkg, name) {
  const dir = join(recipeDir, 'node_modules', ...pkg.split('/'));
  let meta;
  try {
    meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  } catch (e) {
    process.stderr.write(`${pkg} is not installed in ${recipeDir}: run \`npm ci\` there (${e.message})\n`);
    process.exit(2);
  }
  const bin = typeof meta.bin === 'string' ? meta.bin : meta.bin?.[name];
  if (!bin) {
    process.stderr.write(`${pkg} ${meta.version} has no bin ${name}\n`);
    process.exit(2);
  }
  return join(dir, bin);
}

/**
 * clientEnv is the client's environment: the caller's (probe's URLs and keys), with HOME and the
 * XDG directories in the throw-away home, and the generic opt-outs of update checks and telemetry.
 */
export function clientEnv(h, extra = {}) {
  return {
    ...process.env,
    HOME: h.dir,
    USERPROFILE: h.dir,
    XDG_CONFIG_HOME: h.config,
    XDG_DATA_HOME: h.data,
    XDG_STATE_HOME: h.state,
    XDG_CACHE_HOME: h.cache,
    NO_UPDATE_NOTIFIER: '1',
    DO_NOT_TRACK: '1',
    NO_COLOR: '1',
    CI: '1',
    ...extra,
  };
}

/**
 * run runs command with args (an array: no shell) in cwd with env, stdin closed, its output the
 * wrapper's; when it ends, the wrapper cleans up and exits with its status (128 + the signal's
 * number when a signal ended it). SIGINT and SIGTERM to the wrapper are passed on to the client.
 */
export function run(command, args, { cwd, env, after } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      child.kill(sig);
    });
  }
  child.on('error', (e) => {
    process.stderr.write(`cannot run ${command}: ${e.message}\n`);
    process.exit(127);
  });
  child.on('exit', async (code, signal) => {
    if (after) {
      try {
        await after();
      } catch (e) {
        process.stderr.write(`after the turn: ${e.message}\n`);
      }
    }
    process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
  });
  return child;
}
