// A plain-SDK agent that no built-in lane covers: the official Anthropic TypeScript SDK
// (@anthropic-ai/sdk) with the official MCP TypeScript SDK's client, in the loop most apps write
// by hand: list the server's tools, send them with the user's message, run each tool_use through
// the MCP client, answer it with a tool_result, until the model answers in text.
//
// The tool_result is built the way a typical app builds it: the MCP content blocks mapped to
// Anthropic content blocks (text → text, image → base64 image; a resource's text → text, anything
// else → its JSON as text), is_error from isError, structuredContent and _meta left behind (the
// Messages API has no slot for them). A tool call the MCP client rejects (a JSON-RPC error, a
// result the SDK's schema refuses) becomes an is_error tool_result holding the error's message.
//
//   contractcheck probe --lane anthropic-agent-js --version 1.16.0 --provider anthropic -- node anthropic-agent.mjs
//
// PROBE_TRANSPORT=stdio starts the server from CONTRACTCHECK_MCP_COMMAND (StdioClientTransport)
// instead of connecting to CONTRACTCHECK_MCP_URL (StreamableHTTPClientTransport, the default);
// PROBE_STREAM=1 uses messages.stream instead of messages.create; PROBE_OBSERVE=1 also reports
// the decoded CallToolResult as D1 and the tool_result block as A2 (observe.mjs).
import { mcpCommand, need, PROMPT, streaming, transport } from './lib/probe.mjs';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pathToFileURL } from 'node:url';
import { observe } from './observe.mjs';

const MODEL = 'claude-sonnet-4-5';
const MAX_TURNS = 4;
const report = process.env.PROBE_OBSERVE === '1';

/** toAnthropicBlock maps one MCP content block to a content block of a tool_result. */
export function toAnthropicBlock(b) {
  switch (b?.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'image':
      return { type: 'image', source: { type: 'base64', media_type: b.mimeType, data: b.data } };
    case 'resource':
      if (typeof b.resource?.text === 'string') return { type: 'text', text: b.resource.text };
      return { type: 'text', text: JSON.stringify(b) };
    default: // audio, resource_link, and types this app does not know
      return { type: 'text', text: JSON.stringify(b) };
  }
}

/** toolResult is the tool_result block answering a tool_use with an MCP CallToolResult. */
export function toolResult(id, result) {
  const block = { type: 'tool_result', tool_use_id: id, content: (result.content ?? []).map(toAnthropicBlock) };
  if (result.isError) block.is_error = true;
  return block;
}

async function main() {
  const mcp = new Client({ name: 'anthropic-agent', version: '1.0.0' });
  if (transport('http') === 'stdio') {
    const { command, args } = mcpCommand();
    await mcp.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
  } else {
    await mcp.connect(new StreamableHTTPClientTransport(new URL(need('CONTRACTCHECK_MCP_URL'))));
  }
  try {
    const { tools } = await mcp.listTools();
    // ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY come from the environment.
    const anthropic = new Anthropic({ maxRetries: 0 });
    const messages = [{ role: 'user', content: PROMPT }];
    const params = {
      model: MODEL,
      max_tokens: 1024,
      tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
    };
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const msg = streaming
        ? await anthropic.messages.stream({ ...params, messages }).finalMessage()
        : await anthropic.messages.create({ ...params, messages });
      messages.push({ role: 'assistant', content: msg.content });
      const uses = msg.content.filter((b) => b.type === 'tool_use');
      if (uses.length === 0) {
        process.stdout.write(msg.content.filter((b) => b.type === 'text').map((b) => b.text).join('') + '\n');
        return;
      }
      const results = [];
      for (const use of uses) {
        let result;
        try {
          result = await mcp.callTool({ name: use.name, arguments: use.input });
          if (report) await observe('D1', result, use.id);
        } catch (err) {
          result = { content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }], isError: true };
        }
        const block = toolResult(use.id, result);
        if (report) await observe('A2', block, use.id);
        results.push(block);
      }
      messages.push({ role: 'user', content: results });
    }
    throw new Error(`no final answer after ${MAX_TURNS} turns`);
  } finally {
    await mcp.close();
  }
}

// Run when started as a program; imported (by test/), it only exports the mapping.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
