// The capture process's environment, set before any framework is imported: no provider key or
// base URL from outside, tracing and telemetry off everywhere.
import { telemetryOff } from './guard.mjs';

for (const name of Object.keys(process.env)) {
  if (/^(OPENAI_|GOOGLE_|GEMINI_|LANGSMITH_|LANGCHAIN_|LANGGRAPH_|OTEL_|ADK_)/.test(name)) {
    delete process.env[name];
  }
}
telemetryOff();

// Frameworks that log with console.log/info write to stdout; send it to stderr, where logs belong.
console.log = console.error;
console.info = console.error;
