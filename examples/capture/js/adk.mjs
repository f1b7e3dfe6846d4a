// Lane adk-js: @google/adk's MCPToolset (StdioConnectionParams: an MCP SDK 1.x stdio client that
// spawns the raw MCP server, lib/rawmcp-server.mjs, for every tool listing and every call) inside
// an LlmAgent run by an InMemoryRunner, whose Gemini model (@google/genai) talks to the local fake
// provider.
//
// Stages, per fixture:
//   D1 not_observable: MCPTool.runAsync (tools/mcp/mcp_tool.js) returns the MCP SDK's decoded
//      CallToolResult to the flow at once; no public seam shows it apart from the A2 event.
//   A2 the function-response Event the run yields (runner.runEphemeral): its content's
//      functionResponse part, with the event's own fields.
//   M3 the FunctionResponse in the LlmRequest contents handed to Gemini.generateContentAsync on
//      the call after the tool ran.
//   H4 the Part holding the functionResponse in the second generateContent request body.
//
//   node adk.mjs --repetition 1 --out records.jsonl
import './lib/env.mjs';
import { Gemini, InMemoryRunner, LlmAgent, LogLevel, MCPToolset, setLogLevel } from '@google/adk';
import { geminiFunctionResponse } from './lib/h4.mjs';
import { bounded, installedVersion, PER_FIXTURE_MS, runLane } from './lib/lane.mjs';
import { plain } from './lib/record.mjs';

const LANE = 'adk-js';
const MODEL = 'gemini-2.5-flash';

setLogLevel(LogLevel.WARN);

// LocalGemini is the Gemini model class pointed at the local provider (getHttpOptions adds the
// base URL the GoogleGenAI client is built with), with a window on the requests handed to it.
class LocalGemini extends Gemini {
  constructor(params, baseUrl) {
    super(params);
    this.localBaseUrl = baseUrl;
    this.requests = [];
  }

  getHttpOptions() {
    return { ...super.getHttpOptions(), baseUrl: this.localBaseUrl };
  }

  async *generateContentAsync(llmRequest, stream, abortSignal) {
    this.requests.push(plain(llmRequest.contents));
    yield* super.generateContentAsync(llmRequest, stream, abortSignal);
  }
}

function functionResponses(contents) {
  const found = [];
  for (const c of contents ?? []) for (const p of c?.parts ?? []) if (p?.functionResponse) found.push(p.functionResponse);
  return found;
}

async function capture(provider, server) {
  const o = {};
  const model = new LocalGemini({ model: MODEL, apiKey: 'test' }, provider.url);
  const toolset = new MCPToolset({ type: 'StdioConnectionParams', serverParams: server });
  try {
    await bounded(PER_FIXTURE_MS, async () => {
      const agent = new LlmAgent({ name: 'capture', description: 'Calls fixture_tool once and answers.', instruction: 'Call fixture_tool, then answer.', model, tools: [toolset] });
      const runner = new InMemoryRunner({ agent, appName: 'contractcheck' });
      for await (const event of runner.runEphemeral({ userId: 'user', newMessage: { role: 'user', parts: [{ text: 'Call fixture_tool.' }] } })) {
        if (o.a2 === undefined && functionResponses([event.content]).length > 0) o.a2 = plain(event);
        if (event.errorCode || event.errorMessage) o.runError ??= new Error(`event error ${event.errorCode ?? ''}: ${event.errorMessage ?? ''}`);
      }
    });
  } catch (err) {
    o.runError = err;
  } finally {
    await toolset.close?.().catch(() => {});
  }
  const second = model.requests[1];
  if (second) {
    const frs = functionResponses(second);
    if (frs.length === 1) o.m3 = frs[0];
  }
  return o;
}

await runLane({
  lane: LANE,
  version: installedVersion('@google/adk'),
  configurations: ['default'],
  capture: (_f, _configuration, provider, server) => capture(provider, server),
  extract: () => geminiFunctionResponse,
  missing: {
    a2: (toolCalls) => `no function-response event in the run (the MCP server answered ${toolCalls} tools/call)`,
    m3: 'the model was never handed the function response',
  },
});
