// Lane langchain-mcp-adapters-js: @langchain/mcp-adapters' MultiServerMCPClient (an MCP SDK 1.x
// stdio client) loads fixture_tool from the raw MCP server (lib/rawmcp-server.mjs); a ChatOpenAI
// (@langchain/openai) pointed at the local fake provider asks for the call; LangGraph's ToolNode
// (the prebuilt agents' tool executor, handleToolErrors true) runs it; the ToolMessage goes back
// to the same chat model.
//
// Stages, per fixture:
//   D1 not_observable: the tool's func (mcp-adapters tools.js _callTool) hands the decoded result
//      straight to _convertCallToolResult; only an afterToolCall hook could see it, which the lane
//      does not set.
//   A2 the ToolMessage ToolNode returns: {type, content, artifact, status, tool_call_id, name, …}.
//   M3 the same ToolMessage object as the integration class's _generate receives it in its message list,
//      recorded with the same fields: a shared carrier (the lane checks it is the same object).
//      ChatOpenAI._generate hands it to ChatOpenAICompletions or ChatOpenAIResponses._generate.
//   H4 the tool's output in the second request body: the role "tool" message of
//      POST /v1/chat/completions, or the function_call_output item of POST /v1/responses, in an
//      envelope {api, item, output} that names the API and copies the item's content/output.
//
//   node langchain-mcp-adapters.mjs --repetition 1 --configuration default --out records.jsonl
import './lib/env.mjs';
import { HumanMessage } from '@langchain/core/messages';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { ChatOpenAI, ChatOpenAICompletions, ChatOpenAIResponses } from '@langchain/openai';
import { chatToolMessage, responsesToolOutput } from './lib/h4.mjs';
import { bounded, installedVersion, PER_FIXTURE_MS, runLane } from './lib/lane.mjs';
import { plain } from './lib/record.mjs';

const LANE = 'langchain-mcp-adapters-js';
const MODEL = 'gpt-4.1';

// toolMessageCarrier is the ToolMessage's own fields, in a fixed order; absent ones are left out.
export function toolMessageCarrier(m) {
  return plain({
    type: m.type,
    content: m.content,
    artifact: m.artifact,
    status: m.status,
    tool_call_id: m.tool_call_id,
    name: m.name,
    id: m.id,
    metadata: m.metadata,
    additional_kwargs: m.additional_kwargs,
    response_metadata: m.response_metadata,
  });
}

// The integration classes ChatOpenAI delegates to (chat_models/index.js ChatOpenAI._generate),
// with a window on the message lists they are handed: the model class's request. They are
// passed in the fields, so the copies bindTools/withConfig make share them. (The callbacks'
// handleChatModelStart sees a copy formatted for tracing instead.)
const seen = [];
class CapturingCompletions extends ChatOpenAICompletions {
  async _generate(messages, options, runManager) {
    seen.push(messages);
    return super._generate(messages, options, runManager);
  }
}
class CapturingResponses extends ChatOpenAIResponses {
  async _generate(messages, options, runManager) {
    seen.push(messages);
    return super._generate(messages, options, runManager);
  }
}

// The H4 carrier is an envelope, the same for both APIs, so one binding reads both: the API, the
// item exactly as the body holds it, and the value the API carries the tool output in (a Chat
// Completions tool message's content, a Responses function_call_output's output), copied
// unchanged from the item.
function chatEnvelope(body) {
  const item = chatToolMessage(body);
  return { api: 'chat.completions', item, output: item.content };
}
function responsesEnvelope(body) {
  const item = responsesToolOutput(body);
  return { api: 'responses', item, output: item.output };
}

async function capture(_f, configuration, provider, server) {
  const o = {};
  const mcp = new MultiServerMCPClient({
    mcpServers: { 'contractcheck-fixture': { transport: 'stdio', ...server } },
    useStandardContentBlocks: configuration === 'use-standard-content-blocks',
  });
  seen.length = 0;
  const fields = {
    model: MODEL,
    apiKey: 'test',
    configuration: { baseURL: `${provider.url}/v1` },
    maxRetries: 0,
    useResponsesApi: configuration === 'use-responses-api',
  };
  const model = new ChatOpenAI({ ...fields, completions: new CapturingCompletions(fields), responses: new CapturingResponses(fields) });
  try {
    await bounded(PER_FIXTURE_MS, async () => {
      const tools = await mcp.getTools();
      const llm = model.bindTools(tools);
      const human = new HumanMessage('Call fixture_tool.');
      const ai = await llm.invoke([human]);
      const { messages } = await new ToolNode(tools).invoke({ messages: [human, ai] });
      const toolMessage = messages.find((m) => m.getType?.() === 'tool');
      if (!toolMessage) throw new Error('ToolNode returned no ToolMessage');
      o.a2 = toolMessageCarrier(toolMessage);
      o.toolMessage = toolMessage;
      await llm.invoke([human, ai, toolMessage]);
    });
  } catch (err) {
    o.runError = err;
  } finally {
    await mcp.close().catch(() => {});
  }
  // The message list handed to the integration on the second call, even when the integration
  // then failed to convert it.
  const handed = seen[1]?.find((m) => m.getType?.() === 'tool');
  if (handed !== undefined) {
    if (handed === o.toolMessage) o.m3 = toolMessageCarrier(handed);
    else o.runError ??= new Error('the chat model received a different ToolMessage object than ToolNode returned');
  }
  return o;
}

await runLane({
  lane: LANE,
  version: installedVersion('@langchain/mcp-adapters'),
  configurations: ['default', 'use-responses-api', 'use-standard-content-blocks'],
  capture,
  extract: (configuration) => (configuration === 'use-responses-api' ? responsesEnvelope : chatEnvelope),
  missing: {
    a2: (toolCalls) => `no ToolMessage (the MCP server answered ${toolCalls} tools/call)`,
    m3: 'the chat model was never handed the ToolMessage',
  },
});
