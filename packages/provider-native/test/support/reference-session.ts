import type { Session } from '@mce/core';
import { SessionBuilder } from './session-builder.js';

/**
 * One MAS call with agents A, B, A; three LLM calls (gpt-4o, an unpriced model, gpt-4o-mini) and three tool calls
 * (one errored, one outside any agent). Expected values in the tests are worked out from these numbers.
 *
 *   mas1  5..1000            a1 A 10..500   b1 B 500..900   a2 A 900..990
 *   l1 (a1) 20..120  gpt-4o          in 1000 out 100                 → 0.0035 USD
 *   l2 (b1) 510..810 mystery-model   in 2000 out 200, 1000 cache-read → 0.00575 USD (priced like gpt-4o)
 *   l3 (a2) 910..960 gpt-4o-mini     in 100 out 10, status error      → 2.1e-5 USD
 *   t1 (a1) 130..230 search, error   t2 (b1) 820..880 search   t3 (no agent) 995..999 calc
 */
export function referenceSession(): Session {
  const b = new SessionBuilder('session-1', { start: 0, end: 5000 });
  const mas = b.mas({ id: 'mas1', start: 5, end: 1000 });
  const m = mas.id;
  b.agent('A', { id: 'a1', start: 10, end: 500, mas: m });
  b.agent('B', { id: 'b1', start: 500, end: 900, mas: m });
  b.agent('A', { id: 'a2', start: 900, end: 990, mas: m });
  b.llm({ id: 'l1', start: 20, end: 120, agent: 'a1', mas: m, responseModel: 'gpt-4o', usage: { inputTokens: 1000, outputTokens: 100 } });
  b.llm({
    id: 'l2',
    start: 510,
    end: 810,
    agent: 'b1',
    mas: m,
    requestModel: 'mystery-model',
    usage: { inputTokens: 2000, outputTokens: 200, cacheReadTokens: 1000 },
  });
  b.llm({
    id: 'l3',
    start: 910,
    end: 960,
    agent: 'a2',
    mas: m,
    responseModel: 'gpt-4o-mini',
    status: 'error',
    usage: { inputTokens: 100, outputTokens: 10 },
  });
  b.tool('search', { id: 't1', start: 130, end: 230, agent: 'a1', mas: m, status: 'error' });
  b.tool('search', { id: 't2', start: 820, end: 880, agent: 'b1', mas: m });
  b.tool('calc', { id: 't3', start: 995, end: 999, mas: m });
  return b.build();
}
