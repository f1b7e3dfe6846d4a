#!/usr/bin/env node
// Recipe: @google/gemini-cli (pinned in package.json / package-lock.json), one headless turn under
// `contractcheck probe`. README.md says what each setting is for and where the client reads it.
//
//   contractcheck probe --lane gemini-cli --version 0.61.0 --suite visibility --output DIR -- \
//     node examples/probe/clients/gemini-cli/run.mjs
//
// PROBE_TRANSPORT=stdio serves the fixture through CONTRACTCHECK_MCP_COMMAND instead of
// CONTRACTCHECK_MCP_URL. The model is the client's own default (its model router, whose
// tool-less classifier request the fake provider answers as a side call); GEMINI_CLI_MODEL names
// one (a concrete model switches the router off).

import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binOf, clientEnv, home, mcpCommand, need, prompt, run, transport, writeJSON } from '../lib/recipe.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const gemini = binOf(here, '@google/gemini-cli', 'gemini');
need('GOOGLE_GEMINI_BASE_URL');
need('GEMINI_API_KEY');
const model = process.env.GEMINI_CLI_MODEL || '';

const server =
  transport() === 'stdio'
    ? { ...mcpCommand(), trust: true }
    : { httpUrl: need('CONTRACTCHECK_MCP_URL'), trust: true };

const h = home('gemini-cli');
// User settings: $GEMINI_CLI_HOME/.gemini/settings.json (GEMINI_CLI_HOME is the throw-away home).
writeJSON(`${h.dir}/.gemini/settings.json`, {
  general: {
    enableAutoUpdate: false,
    enableAutoUpdateNotification: false,
    checkpointing: { enabled: false },
  },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  ide: { enabled: false },
  ...(model ? { model: { name: model } } : {}),
  security: {
    auth: { selectedType: 'gemini-api-key' },
    folderTrust: { enabled: false },
  },
  tools: { sandbox: false, useRipgrep: false },
  mcpServers: { cc: server },
});

run(
  process.execPath,
  [
    gemini,
    ...(model ? [`--model=${model}`] : []),
    '--approval-mode=yolo',
    '--skip-trust',
    '--output-format=text',
    '--allowed-mcp-server-names=cc',
    // --prompt=VALUE: a prompt that starts with "-" stays the prompt
    `--prompt=${prompt()}`,
  ],
  {
    cwd: h.work,
    env: clientEnv(h, {
      GEMINI_CLI_HOME: h.dir,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_TELEMETRY_ENABLED: 'false',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      // with both set the client takes GOOGLE_API_KEY and says so on every start
      GOOGLE_API_KEY: undefined,
    }),
  },
);
