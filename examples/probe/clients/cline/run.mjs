#!/usr/bin/env node
// Recipe: the Cline CLI (npm package `cline`, pinned in package.json / package-lock.json; the CLI
// is a Bun-compiled binary in the optional dependency @cline/cli-linux-x64, which bin/cline, a
// Node script, starts), one headless turn under `contractcheck probe` over Chat Completions
// (provider openai-compatible). README.md says what each setting is for and where the client
// reads it.
//
//   contractcheck probe --lane cline --version 3.0.65 --suite visibility --output DIR -- \
//     node examples/probe/clients/cline/run.mjs
//
// PROBE_TRANSPORT=stdio serves the fixture through CONTRACTCHECK_MCP_COMMAND instead of
// CONTRACTCHECK_MCP_URL; CLINE_MODEL overrides the model id sent to the fake provider.

import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binOf, clientEnv, home, mcpCommand, need, onCleanup, prompt, run, transport, writeJSON } from '../lib/recipe.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const cline = binOf(here, 'cline', 'cline');
const baseURL = need('OPENAI_BASE_URL');
const apiKey = need('OPENAI_API_KEY');
const model = process.env.CLINE_MODEL || 'gpt-4o';

const server =
  transport() === 'stdio'
    ? { transport: { type: 'stdio', ...mcpCommand() } }
    : { transport: { type: 'streamableHttp', url: need('CONTRACTCHECK_MCP_URL') } };

/** freePort is a loopback port free now: the hub daemon of this run listens there, no other's. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const h = home('cline');
const clineDir = join(h.dir, '.cline');
const data = join(clineDir, 'data');
const settings = join(data, 'settings');
// The files `cline auth openai-compatible -k … -m … -b …` and `cline mcp add cc --transport
// streamableHttp --yes URL` write, written here directly (each of those commands takes seconds).
writeJSON(join(settings, 'providers.json'), {
  version: 1,
  lastUsedProvider: 'openai-compatible',
  modes: {},
  providers: {
    'openai-compatible': {
      settings: { provider: 'openai-compatible', apiKey, model, baseUrl: baseURL },
      updatedAt: new Date().toISOString(),
      tokenSource: 'manual',
    },
  },
});
writeJSON(join(settings, 'cline_mcp_settings.json'), { mcpServers: { cc: server } });
writeJSON(join(settings, 'global-settings.json'), {
  telemetryOptOut: true,
  autoUpdateEnabled: false,
  toolAutoApprove: true,
});

const port = await freePort();

/**
 * hubDaemons are the pids of the hub daemons this run's client started: `cline --cline-hub-daemon
 * --cwd DIR …` detaches (its parent becomes init) and outlives the turn; DIR is this run's own
 * throw-away work directory, so no other run's daemon matches.
 */
function hubDaemons() {
  const pids = [];
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids; // not Linux: nothing to find this way
  }
  for (const e of entries) {
    if (!/^[0-9]+$/.test(e)) continue;
    let argv;
    try {
      argv = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const cwd = argv.indexOf('--cwd');
    if (argv.includes('--cline-hub-daemon') && cwd >= 0 && argv[cwd + 1] === h.work) pids.push(Number(e));
  }
  return pids;
}

/** signal sends sig to each daemon's process group (it leads its own: it was started detached). */
function signal(pids, sig) {
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, sig);
      } catch {
        // already gone
      }
    }
  }
}

/**
 * stopHub ends this run's hub daemons: SIGTERM, then SIGKILL after two seconds; then it waits
 * until nothing writes into the home directory any more, so that removing it is final.
 */
async function stopHub() {
  const started = hubDaemons();
  let pids = started;
  signal(pids, 'SIGTERM');
  for (let i = 0; i < 20 && pids.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    pids = hubDaemons();
  }
  signal(pids, 'SIGKILL');
  if (started.length > 0) {
    rmSync(h.dir, { recursive: true, force: true, maxRetries: 3 });
    await new Promise((r) => setTimeout(r, 500));
  }
}
// and if the wrapper is ended before the turn is: SIGTERM at least
onCleanup(() => signal(hubDaemons(), 'SIGTERM'));

run(
  process.execPath,
  [
    cline,
    '--auto-approve',
    'true',
    '--cwd',
    h.work,
    // after "--" a prompt that starts with "-" stays the prompt
    '--',
    prompt(),
  ],
  {
    cwd: h.work,
    env: clientEnv(h, {
      CLINE_HUB_PORT: String(port),
      CLINE_NO_AUTO_UPDATE: '1',
      CLINE_DISABLE_CLINE_PASS_NOTICE: '1',
      CLINE_NO_INTERACTIVE: '1',
    }),
    after: stopHub,
  },
);
