/**
 * The scripted OpenAI-compatible server in its own process, so the benchmark's CPU figures are the engine's and the
 * judge client's only. Replies after `latencyMs` with a logprob-scored judgement; reports its counters on request.
 */
import { scoreTokens, startScriptedLLMServer } from '../../test-support/scripted-llm-server.mjs';

const latencyMs = Number(process.argv[2] ?? 100);
const reasoning = 'The response answers the question directly and uses the tool result.';
const step = {
  latencyMs,
  text: `${reasoning}\nScore: 4`,
  logprobs: scoreTokens(reasoning, { ' 4': 0.7, ' 5': 0.2, ' 3': 0.1 }),
  usage: { prompt_tokens: 850, completion_tokens: 40, total_tokens: 890 },
};
const server = await startScriptedLLMServer({ script: () => step });
process.send?.({ url: server.url });
process.on('message', (message) => {
  if (message === 'stats') {
    const at = server.requests.map((r) => r.at);
    const span = at.length ? Math.max(...at) - Math.min(...at) : 0;
    process.send?.({ requests: server.requests.length, maxConcurrent: server.maxConcurrent, firstAt: Math.min(...at), span });
    server.setScript(() => step);
  } else if (message === 'close') {
    void server.close().then(() => process.exit(0));
  }
});
