// What the agent commands of this directory share: the network guard, and the environment
// `contractcheck probe` sets for each run, read in one place. Import it first (before any
// framework), so the guard is in place and tracing and telemetry are off before an SDK reads its
// settings: nothing may leave the machine, and the fake provider answers only the model API.
//
//   CONTRACTCHECK_MCP_URL       the MCP Streamable HTTP endpoint of this run
//   CONTRACTCHECK_MCP_COMMAND   a shell word list that starts the same server over stdio
//   CONTRACTCHECK_TOOL          the tool's name (fixture_tool)
//   CONTRACTCHECK_PROMPT        the user prompt to send
//   OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL and the API keys: the fake
//   provider, read by each SDK from the environment itself.
//
// The examples' own switches (set by the caller; probe passes its environment through):
//   PROBE_TRANSPORT      stdio | http (each command documents its default)
//   PROBE_STREAM=1       stream the model's answers (SSE) instead of plain requests
//   PROBE_CONFIGURATION  the lane configuration to run (CONTRACTCHECK_CONFIGURATION when unset)

// The capture harness's guard (node builtins only), shared rather than copied.
import { refusals, telemetryOff } from '../../../capture/js/lib/guard.mjs';

telemetryOff();

// Nothing may leave the machine: guard.mjs makes every non-loopback connection, DNS query and
// datagram throw, and a command that attempted one fails (exit 3) even when a framework swallowed
// the error, so probe records the run as execution_failed with the refusal in its output tail.
process.on('exit', () => {
  const refused = refusals();
  if (refused.length === 0) return;
  for (const r of refused) process.stderr.write(r + '\n');
  process.stderr.write('a non-loopback connection was attempted: the run is void\n');
  process.exitCode = 3;
});

export { need, splitWords } from './words.mjs';
import { need, splitWords } from './words.mjs';

/** mcpCommand is CONTRACTCHECK_MCP_COMMAND as {command, args}, for a stdio MCP client. */
export function mcpCommand() {
  const [command, ...args] = splitWords(need('CONTRACTCHECK_MCP_COMMAND'));
  if (command === undefined) throw new Error('CONTRACTCHECK_MCP_COMMAND is empty');
  return { command, args };
}

/** transport is PROBE_TRANSPORT (stdio or http), or def when unset. */
export function transport(def) {
  const t = process.env.PROBE_TRANSPORT || def;
  if (t !== 'stdio' && t !== 'http') throw new Error(`PROBE_TRANSPORT must be stdio or http, not ${t}`);
  return t;
}

/** configuration is the lane configuration to run, checked against the ones the command knows. */
export function configuration(known) {
  const c = process.env.PROBE_CONFIGURATION || process.env.CONTRACTCHECK_CONFIGURATION || 'default';
  if (!known.includes(c)) throw new Error(`unknown configuration ${c} (have ${known.join(', ')})`);
  return c;
}

/** streaming reports whether PROBE_STREAM asks for streamed model answers. */
export const streaming = ['1', 'true', 'yes'].includes((process.env.PROBE_STREAM ?? '').toLowerCase());

export const TOOL = process.env.CONTRACTCHECK_TOOL || 'fixture_tool';
export const PROMPT = process.env.CONTRACTCHECK_PROMPT || `Call ${TOOL}, then answer.`;
