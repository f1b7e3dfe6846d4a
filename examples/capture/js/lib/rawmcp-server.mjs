// The raw MCP server as a stdio process: node lib/rawmcp-server.mjs FIXTURE.json [CALLS_FILE]
// serves FIXTURE.json (see rawmcp.mjs) on stdin/stdout and appends one line to CALLS_FILE for
// every tools/call it answers, so the harness can tell whether the framework called the tool.
import './guard.mjs';
import { appendFileSync, readFileSync } from 'node:fs';
import { serve } from './rawmcp.mjs';

const [fixturePath, callsFile] = process.argv.slice(2);
if (!fixturePath) {
  process.stderr.write('usage: rawmcp-server.mjs FIXTURE.json [CALLS_FILE]\n');
  process.exit(2);
}
const fixture = readFileSync(fixturePath);
await serve(fixture, process.stdin, process.stdout, () => {
  if (callsFile) appendFileSync(callsFile, 'tools/call\n');
});
