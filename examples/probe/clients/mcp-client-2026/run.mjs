#!/usr/bin/env node
// Recipe: a one-turn agent of ours (agent.mjs) on the MCP TypeScript SDK's 2026 line
// (@modelcontextprotocol/client, negotiating 2026-07-28 through server/discover) and the openai
// SDK (Chat Completions), both pinned in package.json / package-lock.json, under
// `contractcheck probe`. Node 20 or later (the machine's).
//
//   contractcheck probe --lane mcp-client-2026 --version 2.4.0 --suite visibility --output DIR -- \
//     node examples/probe/clients/mcp-client-2026/run.mjs
//
// PROBE_TRANSPORT=stdio serves the fixture through CONTRACTCHECK_MCP_COMMAND instead of
// CONTRACTCHECK_MCP_URL; MCP2026_MODEL overrides the model id sent to the fake provider.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentEnv, clientEnv, home, run } from '../lib/recipe.mjs';

const here = dirname(fileURLToPath(import.meta.url));
if (!existsSync(join(here, 'node_modules', '@modelcontextprotocol', 'client', 'package.json'))) {
  process.stderr.write(`@modelcontextprotocol/client is not installed: run \`npm ci\` in ${here}\n`);
  process.exit(2);
}
const handoff = agentEnv('MCP2026');

const h = home('mcp-client-2026');
run(process.execPath, [join(here, 'agent.mjs')], { cwd: h.work, env: clientEnv(h, handoff) });
