// Lane adk-js under probe: @google/adk (2.0.0) LlmAgent with a Gemini model (@google/genai
// 2.32.0; GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY from the environment) and an MCPToolset over
// stdio (StdioConnectionParams from CONTRACTCHECK_MCP_COMMAND, as examples/capture/js/adk.mjs;
// PROBE_TRANSPORT=http: StreamableHTTPConnectionParams), run by an InMemoryRunner.
// PROBE_STREAM=1 runs it with streamingMode SSE (streamGenerateContent).
//
// PROBE_OBSERVE=1 also reports the capture program's A2 (the function-response Event the run
// yields) and M3 (the FunctionResponse in the LlmRequest handed to the model after the tool ran),
// as the built-in lane observes both. Under a lane of your own (H4 only) leave it unset.
//
//   PROBE_OBSERVE=1 contractcheck probe --lane adk-js --version 2.0.0 --output out -- node adk-js.mjs
//   contractcheck probe --lane my-adk --version 2.0.0 --provider gemini --output out -- node adk-js.mjs
import { configuration, mcpCommand, need, PROMPT, streaming, transport } from './lib/probe.mjs';
import { Gemini, InMemoryRunner, LlmAgent, LogLevel, MCPToolset, setLogLevel, StreamingMode } from '@google/adk';
import { observe } from './observe.mjs';

const report = process.env.PROBE_OBSERVE === '1';
const plain = (v) => JSON.parse(JSON.stringify(v));
const functionResponses = (contents) => (contents ?? []).flatMap((c) => (c?.parts ?? []).filter((p) => p?.functionResponse).map((p) => p.functionResponse));

// The model, with a window on the FunctionResponse it is handed on its second call (M3).
class Model extends Gemini {
  calls = 0;
  async *generateContentAsync(llmRequest, stream, abortSignal) {
    if (++this.calls === 2) {
      const frs = functionResponses(plain(llmRequest.contents));
      if (frs.length === 1) this.m3 = frs[0];
    }
    yield* super.generateContentAsync(llmRequest, stream, abortSignal);
  }
}

configuration(['default']);
setLogLevel(LogLevel.WARN);
const toolset = new MCPToolset(transport('stdio') === 'stdio'
  ? { type: 'StdioConnectionParams', serverParams: mcpCommand() }
  : { type: 'StreamableHTTPConnectionParams', url: need('CONTRACTCHECK_MCP_URL') });
const model = new Model({ model: 'gemini-2.5-flash' });
let a2;
try {
  const agent = new LlmAgent({ name: 'capture', description: 'Calls fixture_tool once and answers.', instruction: 'Call fixture_tool, then answer.', model, tools: [toolset] });
  const runner = new InMemoryRunner({ agent, appName: 'contractcheck' });
  const runConfig = streaming ? { streamingMode: StreamingMode.SSE } : undefined;
  let text = '';
  let error;
  for await (const event of runner.runEphemeral({ userId: 'user', newMessage: { role: 'user', parts: [{ text: PROMPT }] }, runConfig })) {
    if (a2 === undefined && functionResponses([event.content]).length > 0) a2 = plain(event);
    if (event.errorCode || event.errorMessage) error ??= new Error(`event error ${event.errorCode ?? ''}: ${event.errorMessage ?? ''}`);
    if (!event.partial) for (const p of event.content?.parts ?? []) if (p.text) text += p.text;
  }
  if (error) throw error;
  console.log(text);
} finally {
  await toolset.close();
  if (report && a2) await observe('A2', a2);
  if (report && model.m3) await observe('M3', model.m3);
}
