// Lane openai-agents-js under probe: @openai/agents (0.14.3) Runner with an OpenAIResponsesModel,
// the MCP server over stdio (MCPServerStdio, as examples/capture/js/openai-agents.mjs spawns it)
// or Streamable HTTP (PROBE_TRANSPORT=http: MCPServerStreamableHttp). Configured as the capture
// program is: model gpt-4.1, maxRetries 0, tracing off; PROBE_CONFIGURATION=use-structured-content
// sets useStructuredContent. PROBE_STREAM=1 runs the Runner streamed. PROBE_PACKAGE names the
// installed package to import: @openai/agents (0.14.3), or openai-agents-0.5.4 (@openai/agents
// 0.5.4 under an npm alias, the lane's other captured version: --version 0.5.4).
//
// PROBE_OBSERVE=1 also reports the capture program's A2 (the run's RunToolCallOutputItem as
// {type, rawItem, output}) and M3 (the function_call_result item of the ModelRequest handed to
// the model on the turn after the tool call): the built-in lane observes both, so probing under
// its name needs them. Under a lane of your own (H4 only) leave it unset.
//
//   PROBE_OBSERVE=1 contractcheck probe --lane openai-agents-js --version 0.14.3 --output out -- node openai-agents-js.mjs
//   contractcheck probe --lane my-oajs --version 0.14.3 --provider openai-responses --output out -- node openai-agents-js.mjs
import { configuration, mcpCommand, need, PROMPT, streaming, transport } from './lib/probe.mjs';
import OpenAI from 'openai';
import { observe } from './observe.mjs';

const report = process.env.PROBE_OBSERVE === '1';
// PROBE_PACKAGE=openai-agents-0.5.4 runs the other release the lane captures (an npm alias).
const { Agent, MCPServerStdio, MCPServerStreamableHttp, OpenAIResponsesModel, Runner, setTracingDisabled } = await import(process.env.PROBE_PACKAGE || '@openai/agents');

// The model, with a window on the function_call_result item it is handed on its second turn (M3).
class Model extends OpenAIResponsesModel {
  turn = 0;
  see(request) {
    if (++this.turn !== 2 || !Array.isArray(request.input)) return;
    const items = request.input.filter((i) => i?.type === 'function_call_result');
    if (items.length === 1) this.m3 = JSON.parse(JSON.stringify(items[0]));
  }
  async getResponse(request) {
    this.see(request);
    return super.getResponse(request);
  }
  async *getStreamedResponse(request) {
    this.see(request);
    yield* super.getStreamedResponse(request);
  }
}

setTracingDisabled(true);
const useStructuredContent = configuration(['default', 'use-structured-content']) === 'use-structured-content';
const name = 'contractcheck-fixture';
const server = transport('stdio') === 'stdio'
  ? new MCPServerStdio({ name, ...mcpCommand(), useStructuredContent })
  : new MCPServerStreamableHttp({ name, url: need('CONTRACTCHECK_MCP_URL'), useStructuredContent });
// OPENAI_BASE_URL and OPENAI_API_KEY come from the environment.
const model = new Model(new OpenAI({ maxRetries: 0 }), 'gpt-4.1');
let item;
try {
  await server.connect();
  const agent = new Agent({ name: 'capture', instructions: 'Call fixture_tool, then answer.', model, mcpServers: [server] });
  const result = await new Runner({ tracingDisabled: true }).run(agent, PROMPT, { maxTurns: 3, stream: streaming });
  if (streaming) await result.completed;
  item = result.newItems.find((i) => i.type === 'tool_call_output_item');
  console.log(result.finalOutput);
} finally {
  await server.close();
  if (report && item) await observe('A2', { type: item.type, rawItem: item.rawItem, output: item.output }, item.rawItem.callId);
  if (report && model.m3) await observe('M3', model.m3, model.m3.callId);
}
