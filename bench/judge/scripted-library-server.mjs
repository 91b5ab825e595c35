/**
 * A scripted OpenAI-compatible server in its own process for the library-backed providers: after `latencyMs` it
 * answers a forced tool call (Ragas via autoevals) with arguments for that function, a JSON-schema request (DeepEval,
 * Opik) with JSON for that schema, and an embeddings request with a vector. Reports its counters on request.
 */
import { startScriptedLLMServer } from '../../test-support/scripted-llm-server.mjs';

const latencyMs = Number(process.argv[2] ?? 100);
const usage = { prompt_tokens: 850, completion_tokens: 40, total_tokens: 890 };
const TOOL_ARGS = {
  verify: { reason: 'useful', verdict: 1 },
  extract_statements: { statements: ['The train leaves at 09:04.'] },
  judge_statements: { faithfulness: [{ statement: 'The train leaves at 09:04.', verdict: 1, reason: 'in the tool result' }] },
  generate_question: { question: 'Which train did you book?', noncommittal: 0 },
};
const JSON_REPLIES = {
  statements: { statements: ['Booked a train.', 'It has a window seat.'] },
  verdicts: { verdicts: [{ verdict: 'yes' }, { verdict: 'yes' }] },
  reason: { reason: 'The response addresses the request.' },
  'reason,score': { score: 0, reason: 'faithful to the context' },
};

function step(body) {
  if (body.input !== undefined) return { latencyMs, embedding: [1, 0, 0], usage: { prompt_tokens: 12, total_tokens: 12 } };
  const tool = body.tool_choice?.function?.name;
  if (tool) return { latencyMs, usage, toolCalls: [{ name: tool, arguments: TOOL_ARGS[tool] ?? {} }] };
  const keys = Object.keys(body.response_format?.json_schema?.schema?.properties ?? {}).sort().join(',');
  return { latencyMs, usage, text: JSON.stringify(JSON_REPLIES[keys] ?? {}) };
}

const server = await startScriptedLLMServer({ script: step });
process.send?.({ url: server.url });
process.on('message', (message) => {
  if (message === 'stats') {
    process.send?.({ requests: server.requests.length, maxConcurrent: server.maxConcurrent });
    server.setScript(step);
  } else if (message === 'close') {
    void server.close().then(() => process.exit(0));
  }
});
