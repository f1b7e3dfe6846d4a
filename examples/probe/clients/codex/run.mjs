#!/usr/bin/env node
// Recipe: @openai/codex (pinned in package.json / package-lock.json; the Rust binary comes in the
// optional dependency @openai/codex-linux-x64), one headless turn (`codex exec`) under
// `contractcheck probe`. README.md says what each setting is for and where the client reads it.
//
//   contractcheck probe --lane codex --version 0.171.0 --suite visibility --output DIR -- \
//     node examples/probe/clients/codex/run.mjs
//
// PROBE_TRANSPORT=stdio serves the fixture through CONTRACTCHECK_MCP_COMMAND instead of
// CONTRACTCHECK_MCP_URL; CODEX_MODEL overrides the model name sent to the fake provider.

import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binOf, clientEnv, home, mcpCommand, need, prompt, run, transport, writeText } from '../lib/recipe.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const codex = binOf(here, '@openai/codex', 'codex');
const baseURL = need('OPENAI_BASE_URL');
need('OPENAI_API_KEY');
const model = process.env.CODEX_MODEL || 'gpt-5.5';

/** toml is s as a TOML basic string: every control character (and DEL) escaped. */
function toml(s) {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (c < 0x20 || c === 0x7f) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

const server =
  transport() === 'stdio'
    ? (({ command, args }) => `command = ${toml(command)}\nargs = [${args.map(toml).join(', ')}]\n`)(mcpCommand())
    : `url = ${toml(need('CONTRACTCHECK_MCP_URL'))}\n`;

const h = home('codex');
const codexHome = `${h.dir}/.codex`;
// $CODEX_HOME/config.toml; `--strict-config` below makes a key this version does not know an
// error, so a release that renames one fails the recipe instead of silently ignoring it.
writeText(
  `${codexHome}/config.toml`,
  `model = ${toml(model)}
model_provider = "contractcheck"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[history]
persistence = "none"

[otel]
exporter = "none"
log_user_prompt = false

[model_providers.contractcheck]
name = "contractcheck probe (fake provider)"
base_url = ${toml(baseURL)}
env_key = "OPENAI_API_KEY"
wire_api = "responses"
requires_openai_auth = false
supports_websockets = false
request_max_retries = 0
stream_max_retries = 0

[mcp_servers.cc]
${server}startup_timeout_sec = 20
tool_timeout_sec = 30
default_tools_approval_mode = "approve"
`,
);

run(
  process.execPath,
  [
    codex,
    'exec',
    '--strict-config',
    '--skip-git-repo-check',
    '--ephemeral',
    '--color=never',
    '--cd',
    h.work,
    // after "--" a prompt that starts with "-" stays the prompt
    '--',
    prompt(),
  ],
  {
    cwd: h.work,
    env: clientEnv(h, {
      CODEX_HOME: codexHome,
    }),
  },
);
