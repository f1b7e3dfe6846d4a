// The strands-agents recipe's agent (run by run.mjs under Node 22, which the SDK needs): one
// Agent of @strands-agents/sdk with the SDK's own MCP client (McpClient) and its OpenAI model on
// the Responses API (the SDK's default API for OpenAIModel), one turn with CONTRACTCHECK_PROMPT.
// Nothing else: what reaches the model is what the SDK sends. README.md cites each setting.

import { Agent, McpClient } from '@strands-agents/sdk';
import { OpenAIModel } from '@strands-agents/sdk/models/openai';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readAgentEnv } from '../lib/recipe.mjs';

const { mode, payload, prompt, baseURL, apiKey } = readAgentEnv('STRANDS');

// MCP: Streamable HTTP at CONTRACTCHECK_MCP_URL (McpClient builds the transport from `url`), or
// the stdio server CONTRACTCHECK_MCP_COMMAND starts (split by run.mjs, passed as JSON).
const mcp =
  mode === 'stdio'
    ? new McpClient({
        applicationName: 'contractcheck-probe-strands',
        disableMcpInstrumentation: true,
        transport: new StdioClientTransport({ ...JSON.parse(payload), stderr: 'inherit' }),
      })
    : new McpClient({
        applicationName: 'contractcheck-probe-strands',
        disableMcpInstrumentation: true,
        url: payload,
      });

const model = new OpenAIModel({
  api: 'responses',
  modelId: process.env.STRANDS_MODEL || 'gpt-4o',
  apiKey,
  clientConfig: { baseURL, maxRetries: 0 },
});

const agent = new Agent({ model, tools: [mcp], printer: false });
let status = 0;
try {
  const result = await agent.invoke(prompt);
  process.stdout.write(`${String(result)}\n`);
} catch (e) {
  process.stderr.write(`${e?.stack ?? e}\n`);
  status = 1;
} finally {
  await mcp.disconnect().catch(() => {});
}
process.exit(status);
