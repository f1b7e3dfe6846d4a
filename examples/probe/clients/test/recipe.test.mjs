// The client recipes' shared helper (lib/recipe.mjs): `node --test examples/probe/clients/test/`
// (Node builtins only: no install).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { splitWords } from '../lib/recipe.mjs';

const lib = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', 'lib', 'recipe.mjs')).href;

test('splitWords splits CONTRACTCHECK_MCP_COMMAND as sh does', () => {
  assert.deepEqual(splitWords(`/a/contractcheck mcp-serve --fixture 'V 01' "x\\"y" z\\ w`), [
    '/a/contractcheck',
    'mcp-serve',
    '--fixture',
    'V 01',
    'x"y',
    'z w',
  ]);
  assert.deepEqual(splitWords(`''`), ['']);
  assert.throws(() => splitWords(`'open`));
});

// A recipe as the wrappers are written: a home, then the "client" (node printing its argv and
// HOME) run with an argument array; the hostile prompt must arrive as one argument, unchanged,
// and the home must be gone once the wrapper has exited with the client's status.
test('run passes a hostile prompt as data, the client status on, and removes the home', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cc-recipe-test-'));
  try {
    const script = join(tmp, 'wrapper.mjs');
    writeFileSync(
      script,
      `import { home, prompt, run, clientEnv } from ${JSON.stringify(lib)};
const h = home('test');
run(process.execPath, ['-e', 'console.log(JSON.stringify({argv: process.argv.slice(1), home: process.env.HOME})); process.exit(7)', '--', prompt()], { cwd: h.work, env: clientEnv(h) });
`,
    );
    const hostile = `$(touch ${join(tmp, 'pwned')}) \`id\` '"; rm -rf / --no-preserve-root\n\x1b[2J-p --yolo`;
    const r = spawnSync(process.execPath, [script], {
      env: { ...process.env, TMPDIR: tmp, CONTRACTCHECK_PROMPT: hostile },
      encoding: 'utf8',
    });
    assert.equal(r.status, 7, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.argv, [hostile]);
    assert.match(out.home, /cc-test-/);
    assert.equal(existsSync(out.home), false, 'the home directory is removed at exit');
    assert.equal(existsSync(join(tmp, 'pwned')), false);
    assert.deepEqual(readdirSync(tmp).sort(), ['wrapper.mjs']);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a wrapper outside probe exits 2 naming what is missing', () => {
  const r = spawnSync(process.execPath, ['-e', `import(${JSON.stringify(lib)}).then((m) => m.need('CONTRACTCHECK_MCP_URL'))`], {
    env: { PATH: process.env.PATH },
    encoding: 'utf8',
  });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /CONTRACTCHECK_MCP_URL is not set/);
});

test('agentEnv hands the agent the transport, the server and the prompt; readAgentEnv reads them back', () => {
  const read = (extra) => spawnSync(process.execPath, ['-e', `import(${JSON.stringify(lib)}).then((m) => {
    const env = { ...m.agentEnv('X'), OPENAI_BASE_URL: process.env.OPENAI_BASE_URL, OPENAI_API_KEY: process.env.OPENAI_API_KEY };
    process.stdout.write(JSON.stringify(m.readAgentEnv('X', env)));
  })`], { env: { PATH: process.env.PATH, OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', OPENAI_API_KEY: 'k', CONTRACTCHECK_PROMPT: 'say "<hi>"', ...extra }, encoding: 'utf8' });
  const stdio = read({ PROBE_TRANSPORT: 'stdio', CONTRACTCHECK_MCP_COMMAND: `srv 'a b' "c'd"` });
  assert.equal(stdio.status, 0, stdio.stderr);
  assert.deepEqual(JSON.parse(stdio.stdout), {
    mode: 'stdio', payload: JSON.stringify({ command: 'srv', args: ['a b', "c'd"] }), prompt: 'say "<hi>"', baseURL: 'http://127.0.0.1:1/v1', apiKey: 'k',
  });
  const http = read({ CONTRACTCHECK_MCP_URL: 'http://127.0.0.1:2/mcp' });
  assert.equal(http.status, 0, http.stderr);
  assert.equal(JSON.parse(http.stdout).mode, 'http');
  assert.equal(JSON.parse(http.stdout).payload, 'http://127.0.0.1:2/mcp');
  const noServer = read({});
  assert.equal(noServer.status, 2);
  assert.match(noServer.stderr, /CONTRACTCHECK_MCP_URL is not set/);
});

test('an agent started without its wrapper exits 2 saying so', () => {
  const r = spawnSync(process.execPath, ['-e', `import(${JSON.stringify(lib)}).then((m) => m.readAgentEnv('X'))`], {
    env: { PATH: process.env.PATH, OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', OPENAI_API_KEY: 'k' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /agent\.mjs is started by run\.mjs/);
});
