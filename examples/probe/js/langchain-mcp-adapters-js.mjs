// Lane langchain-mcp-adapters-js under probe: @langchain/mcp-adapters (1.1.4) MultiServerMCPClient
// loads the tool (stdio from CONTRACTCHECK_MCP_COMMAND, as examples/capture/js/
// langchain-mcp-adapters.mjs spawns it; PROBE_TRANSPORT=http for Streamable HTTP), a ChatOpenAI
// (@langchain/openai 1.5.8) with the tools bound asks for the call, LangGraph's ToolNode runs it and
// the ToolMessage goes back to the same chat model: the capture program's loop.
// PROBE_CONFIGURATION: default (Chat Completions), use-responses-api (useResponsesApi: true),
// use-standard-content-blocks (the client's useStandardContentBlocks). PROBE_STREAM=1 streams the
// model's answers with .stream(), the chunks concatenated (not `streaming: true` with invoke: then
// ChatOpenAI estimates token usage with tiktoken, whose encoding it downloads from the network).
//
// PROBE_OBSERVE=1 also reports the capture program's A2 (the ToolMessage ToolNode returns) and M3
// (the ToolMessage as ChatOpenAI's integration class receives it, when it is the same object), as
// the built-in lane observes both. Under a lane of your own (H4 only) leave it unset.
//
//   PROBE_OBSERVE=1 contractcheck probe --lane langchain-mcp-adapters-js --version 1.1.4 --output out -- node langchain-mcp-adapters-js.mjs
//   contractcheck probe --lane my-lc --version 1.1.4 --provider openai-chat --output out -- node langchain-mcp-adapters-js.mjs
import { configuration, mcpCommand, need, PROMPT, streaming, transport } from './lib/probe.mjs';
import { HumanMessage } from '@langchain/core/messages';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { ChatOpenAI, ChatOpenAICompletions, ChatOpenAIResponses } from '@langchain/openai';
import { observe } from './observe.mjs';

const report = process.env.PROBE_OBSERVE === '1';

// The ToolMessage's own fields in a fixed order, as the capture program records them (A2, M3).
const carrier = (m) => JSON.parse(JSON.stringify({
  type: m.type, content: m.content, artifact: m.artifact, status: m.status, tool_call_id: m.tool_call_id, name: m.name,
  id: m.id, metadata: m.metadata, additional_kwargs: m.additional_kwargs, response_metadata: m.response_metadata,
}));

// The integration classes ChatOpenAI delegates to, with a window on the message lists they are
// handed (M3): plain calls reach _generate, streamed ones _streamResponseChunks.
const handed = [];
const watch = (Base) => class extends Base {
  async _generate(messages, options, runManager) {
    handed.push(messages);
    return super._generate(messages, options, runManager);
  }
  async *_streamResponseChunks(messages, options, runManager) {
    handed.push(messages);
    yield* super._streamResponseChunks(messages, options, runManager);
  }
};

const conf = configuration(['default', 'use-responses-api', 'use-standard-content-blocks']);
const server = transport('stdio') === 'stdio'
  ? { transport: 'stdio', ...mcpCommand() }
  : { transport: 'http', url: need('CONTRACTCHECK_MCP_URL') };
const mcp = new MultiServerMCPClient({
  mcpServers: { 'contractcheck-fixture': server },
  useStandardContentBlocks: conf === 'use-standard-content-blocks',
});
// OPENAI_BASE_URL and OPENAI_API_KEY come from the environment.
const fields = { model: 'gpt-4.1', maxRetries: 0, useResponsesApi: conf === 'use-responses-api' };
const chat = new ChatOpenAI({ ...fields, completions: new (watch(ChatOpenAICompletions))(fields), responses: new (watch(ChatOpenAIResponses))(fields) });
let toolMessage;
try {
  const tools = await mcp.getTools();
  const llm = chat.bindTools(tools);
  const ask = async (msgs) => {
    if (!streaming) return llm.invoke(msgs);
    let message;
    for await (const chunk of await llm.stream(msgs)) message = message ? message.concat(chunk) : chunk;
    return message;
  };
  const human = new HumanMessage(PROMPT);
  const ai = await ask([human]);
  const { messages } = await new ToolNode(tools).invoke({ messages: [human, ai] });
  toolMessage = messages.find((m) => m.getType?.() === 'tool');
  const answer = await ask([human, ai, ...messages]);
  console.log(answer.text);
} finally {
  await mcp.close();
  if (report && toolMessage) {
    await observe('A2', carrier(toolMessage), toolMessage.tool_call_id);
    const m3 = handed[1]?.find((m) => m.getType?.() === 'tool');
    if (m3 === toolMessage) await observe('M3', carrier(m3), m3.tool_call_id);
    else if (m3) throw new Error('the chat model received a different ToolMessage object than ToolNode returned');
  }
}
