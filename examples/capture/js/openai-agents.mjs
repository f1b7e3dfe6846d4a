// Lane openai-agents-js: @openai/agents (agents-core's MCPServerStdio, an MCP SDK 1.x stdio
// client) calling the raw MCP server (lib/rawmcp-server.mjs, spawned as the MCP server process),
// inside a Runner run whose OpenAIResponsesModel talks to the local fake provider.
//
// Stages, per fixture:
//   D1 not_observable: invoke() (agents-core mcp.mjs mcpToFunctionTool) calls
//      MCPServerStdio.callTool/callToolResult and converts at once; the lane does not wrap them.
//   A2 the run's RunToolCallOutputItem (result.newItems): {type, rawItem, output}.
//   M3 the function_call_result item of the ModelRequest.input the runner hands to
//      OpenAIResponsesModel.getResponse on the turn after the tool call.
//   H4 the function_call_output item of the second POST /v1/responses body.
//
//   node openai-agents.mjs --repetition 1 --configuration default --out records.jsonl
import './lib/env.mjs';
import OpenAI from 'openai';
import { responsesToolOutput } from './lib/h4.mjs';
import { bounded, installedVersion, PER_FIXTURE_MS, runLane, STRUCTURED } from './lib/lane.mjs';
import { plain } from './lib/record.mjs';

// PKG is the installed package the run imports: @openai/agents, or an npm alias of another
// release of it (run-lane.sh sets CAPTURE_PACKAGE; the lane version is that package's version).
const PKG = process.env.CAPTURE_PACKAGE || '@openai/agents';
const { Agent, MCPServerStdio, OpenAIResponsesModel, Runner, setTracingDisabled } = await import(PKG);

const LANE = 'openai-agents-js';
const MODEL = 'gpt-4.1';

setTracingDisabled(true);

// CapturingModel is OpenAIResponsesModel with a window on the requests the runner hands it.
class CapturingModel extends OpenAIResponsesModel {
  requests = [];
  async getResponse(request) {
    this.requests.push(plain(request.input));
    return super.getResponse(request);
  }
}

async function capture(_f, configuration, provider, { command, args }) {
  const o = {};
  const server = new MCPServerStdio({
    name: 'contractcheck-fixture',
    command,
    args,
    useStructuredContent: configuration === 'use-structured-content',
  });
  const client = new OpenAI({ apiKey: 'test', baseURL: `${provider.url}/v1`, maxRetries: 0 });
  const model = new CapturingModel(client, MODEL);
  try {
    await bounded(PER_FIXTURE_MS, async () => {
      await server.connect();
      const agent = new Agent({ name: 'capture', instructions: 'Call fixture_tool, then answer.', model, mcpServers: [server] });
      const runner = new Runner({ tracingDisabled: true, traceIncludeSensitiveData: false });
      const result = await runner.run(agent, 'Call fixture_tool.', { maxTurns: 3 });
      const item = result.newItems.find((i) => i.type === 'tool_call_output_item');
      if (item) o.a2 = plain({ type: item.type, rawItem: item.rawItem, output: item.output });
    });
  } catch (err) {
    o.runError = err;
  } finally {
    await server.close().catch(() => {});
  }
  const input = model.requests[1];
  if (input) {
    const items = input.filter((i) => i?.type === 'function_call_result');
    if (items.length === 1) o.m3 = items[0];
  }
  return o;
}

await runLane({
  lane: LANE,
  version: installedVersion(PKG),
  configurations: ['default', 'use-structured-content'],
  capture,
  extract: () => responsesToolOutput,
  missing: {
    a2: (toolCalls) => `no tool_call_output_item in the run (the MCP server answered ${toolCalls} tools/call)`,
    m3: 'the model was never handed the function_call_result',
  },
  skip: (f, configuration) => configuration !== 'default' && !STRUCTURED.has(f.id),
});
