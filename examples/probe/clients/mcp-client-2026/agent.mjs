// The mcp-client-2026 recipe's agent (run by run.mjs): a tiny one-turn agent of ours around the
// MCP TypeScript SDK's 2026 line (@modelcontextprotocol/client) and the openai SDK (Chat
// Completions). The MCP client negotiates with `versionNegotiation: { mode: 'auto' }`: it probes
// with `server/discover` and takes 2026-07-28 when the server offers it (the SDK's default, mode
// 'legacy', would send `initialize` and speak 2025-11-25). Each tool result reaches the model the
// way the SDK's own example hands it over (examples/client/src/multiServerChatbot.ts): the text
// blocks of `content` joined by "\n"; when callTool throws (the SDK rejects the result), the
// error text as the result: `Tool call failed: <message>`. README.md cites each setting.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import OpenAI from 'openai';
import { readAgentEnv } from '../lib/recipe.mjs';

const { mode, payload, prompt, baseURL, apiKey } = readAgentEnv('MCP2026');
const maxSteps = 8;

const client = new Client(
  { name: 'contractcheck-probe-mcp-client-2026', version: '1.0.0' },
  // Opt-in negotiation (ClientOptions.versionNegotiation, dist/client-*.d.mts): 'auto' probes
  // with server/discover and falls back to initialize only on a legacy answer.
  { versionNegotiation: { mode: 'auto' } },
);
// MCP: Streamable HTTP at CONTRACTCHECK_MCP_URL, or the stdio server CONTRACTCHECK_MCP_COMMAND
// starts (split by run.mjs into {command, args}, passed as JSON: no shell).
const transport =
  mode === 'stdio'
    ? new StdioClientTransport({ ...JSON.parse(payload), stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(payload));

const openai = new OpenAI({ apiKey, baseURL, maxRetries: 0 });
const model = process.env.MCP2026_MODEL || 'gpt-4o';

/** text is how the SDK's example hands a CallToolResult to the model: its text blocks, joined. */
function text(result) {
  return (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

let status = 0;
try {
  await client.connect(transport);
  process.stderr.write(`mcp-client-2026: negotiated protocol version ${client.getNegotiatedProtocolVersion?.() ?? '(unknown)'}\n`);
  const { tools } = await client.listTools();
  const fns = tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema },
  }));
  const messages = [{ role: 'user', content: prompt }];
  let answer = '';
  for (let step = 0; ; step++) {
    if (step >= maxSteps) throw new Error(`no final answer after ${maxSteps} model calls`);
    const res = await openai.chat.completions.create({ model, messages, tools: fns });
    const msg = res.choices[0].message;
    const calls = msg.tool_calls ?? [];
    if (calls.length === 0) {
      answer = msg.content ?? '';
      break;
    }
    messages.push(msg);
    for (const call of calls) {
      let content;
      try {
        const args = call.function.arguments ? JSON.parse(call.function.arguments) : {};
        const result = await client.callTool({ name: call.function.name, arguments: args });
        content = text(result);
      } catch (e) {
        content = `Tool call failed: ${e instanceof Error ? e.message : String(e)}`;
        process.stderr.write(`mcp-client-2026: ${call.function.name}: ${content}\n`);
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  process.stdout.write(`${answer}\n`);
} catch (e) {
  process.stderr.write(`${e?.stack ?? e}\n`);
  status = 1;
} finally {
  await client.close().catch(() => {});
}
process.exit(status);
