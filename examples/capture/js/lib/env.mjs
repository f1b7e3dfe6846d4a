// The capture process's environment, set before any framework is imported: no provider key or
// base URL from outside, tracing and telemetry off everywhere.
import './guard.mjs';

for (const name of Object.keys(process.env)) {
  if (/^(OPENAI_|GOOGLE_|GEMINI_|LANGSMITH_|LANGCHAIN_|LANGGRAPH_|OTEL_|ADK_)/.test(name)) {
    delete process.env[name];
  }
}
Object.assign(process.env, {
  OPENAI_AGENTS_DISABLE_TRACING: '1',
  OPENAI_AGENTS_DONT_LOG_MODEL_DATA: '1',
  OPENAI_AGENTS_DONT_LOG_TOOL_DATA: '1',
  LANGCHAIN_TRACING_V2: 'false',
  LANGCHAIN_TRACING: 'false',
  LANGSMITH_TRACING: 'false',
  LANGCHAIN_CALLBACKS_BACKGROUND: 'false',
  OTEL_SDK_DISABLED: 'true',
  OTEL_TRACES_EXPORTER: 'none',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
});

// Frameworks that log with console.log/info write to stdout; send it to stderr, where logs belong.
console.log = console.error;
console.info = console.error;
