// The environment and word-splitting helpers shared by the probe's TypeScript agents and adapters
// (lib/probe.mjs) and the client recipes (examples/probe/clients/lib/recipe.mjs): no side effects,
// Node's standard library only.

/** need returns an environment variable probe sets, or exits 2 naming it. */
export function need(name) {
  const v = process.env[name];
  if (v === undefined || v === '') {
    process.stderr.write(`${name} is not set: run this command under \`contractcheck probe ... -- COMMAND\`\n`);
    process.exit(2);
  }
  return v;
}

/**
 * splitWords splits a shell word list the way sh does for a simple command without expansions:
 * blanks separate words; '…' is literal; "…" keeps \" \\ \$ \` and drops \<newline>; outside
 * quotes a backslash takes the next character literally. An unterminated quote throws. Probe's
 * CONTRACTCHECK_MCP_COMMAND follows these rules.
 */
export function splitWords(s) {
  const words = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in ${JSON.stringify(s)}`);
      word += s.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      i++;
      for (; i < s.length && s[i] !== '"'; i++) {
        if (s[i] === '\\' && i + 1 < s.length && '"\\$`\n'.includes(s[i + 1])) {
          i++;
          if (s[i] !== '\n') word += s[i];
        } else {
          word += s[i];
        }
      }
      if (i >= s.length) throw new Error(`unterminated " in ${JSON.stringify(s)}`);
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 < s.length) {
        i++;
        if (s[i] !== '\n') word += s[i];
        inWord = true;
      }
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
