// The H4 carriers: the one part of a provider request body that carries the tool's output. A body
// without it is an execution failure of the capture (the tool output never reached the wire),
// never a carrier to check.

function parse(raw) {
  if (raw === undefined) throw new Error('the provider received no request after the tool call');
  return typeof raw === 'string' ? JSON.parse(raw) : raw;
}

function one(found, what) {
  if (found.length === 0) throw new Error(`the provider request body has no ${what}`);
  if (found.length > 1) throw new Error(`the provider request body has ${found.length} ${what}s`);
  return found[0];
}

/** responsesToolOutput is the function_call_output item of a POST /responses body's input. */
export function responsesToolOutput(raw) {
  const body = parse(raw);
  const input = Array.isArray(body?.input) ? body.input : [];
  return one(input.filter((i) => i?.type === 'function_call_output'), 'function_call_output input item');
}

/** chatToolMessage is the role "tool" message of a POST /chat/completions body. */
export function chatToolMessage(raw) {
  const body = parse(raw);
  const msgs = Array.isArray(body?.messages) ? body.messages : [];
  return one(msgs.filter((m) => m?.role === 'tool'), 'tool message');
}

/** geminiFunctionResponse is the Part holding the functionResponse of a generateContent body. */
export function geminiFunctionResponse(raw) {
  const body = parse(raw);
  const parts = [];
  for (const c of Array.isArray(body?.contents) ? body.contents : []) {
    for (const p of Array.isArray(c?.parts) ? c.parts : []) if (p?.functionResponse) parts.push(p);
  }
  return one(parts, 'functionResponse part');
}

/**
 * h4 is stage H4 as Writer.stages takes it: the carrier of the request that followed the tool
 * call (the second body), read with the given extractor, or the reason it cannot be had:
 * {stage: 'H4', carrier} or {stage: 'H4', missing}.
 */
export function h4(bodies, extract) {
  try {
    return { stage: 'H4', carrier: extract(bodies[1]) };
  } catch (err) {
    return { stage: 'H4', missing: err.message };
  }
}
