// observe reports a carrier seen inside the agent to `contractcheck probe`, which records it as
// the run's observation for that stage (D1 the decoded tool result, A2 what the framework's tool
// layer returns, M3 what is handed to the model class). Copy this file into your agent.
//
//   import { observe } from './observe.mjs';
//   await observe('A2', toolMessage, callId);
//
// A no-op when CONTRACTCHECK_OBSERVE_URL is unset (the agent runs outside probe). A report probe
// refuses (4xx) throws with probe's message: a carrier that was meant to be recorded and was not
// is an error, never a silent gap.
export async function observe(stage, carrier, callId) {
  const url = process.env.CONTRACTCHECK_OBSERVE_URL;
  if (!url) return;
  const report = { stage, carrier };
  if (callId !== undefined) report.callId = callId;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(report),
  });
  if (res.status !== 204 && !res.ok) {
    throw new Error(`contractcheck probe refused the ${stage} carrier: ${res.status} ${(await res.text()).trim()}`);
  }
}
