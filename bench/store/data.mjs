// Synthetic data for the store benchmark: metric results as a worker produces them, and one long session.

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

export const DEFINITIONS = [
  { id: 'mce:Duration', name: 'Duration', computedBy: 'mce', unit: 'ms', valueRange: 'non-negative number' },
  { id: 'mce:ToolErrorRate', name: 'ToolErrorRate', computedBy: 'mce', unit: '%', valueRange: '0-100' },
  { id: 'mce:AnswerRelevancy', name: 'AnswerRelevancy', computedBy: 'mce', unit: 'dimensionless', valueRange: '0.0-1.0' },
];

/** Results `from` … `from + count - 1`: 10 sessions' worth per 1,000, a third of them LLM-judged. */
export function resultBatch(from, count) {
  const batch = new Array(count);
  for (let k = 0; k < count; k++) {
    const n = from + k;
    const metric = DEFINITIONS[n % 3];
    const judged = n % 3 === 2;
    const sessionId = `bench-session-${Math.floor(n / 100)}`;
    const onCall = n % 2 === 1;
    batch[k] = {
      id: `bench-result-${n}`,
      name: metric.name,
      result: (n % 1000) / 1000,
      reasoning: judged ? 'The response answers the question that was asked, with one unsupported claim.' : '',
      evaluationModel: judged ? 'gpt-4o-mini' : null,
      evaluationPromptTokenCount: judged ? 850 : 0,
      evaluationCompletionTokenCount: judged ? 60 : 0,
      evaluationTotalTokenCount: judged ? 910 : 0,
      evaluationCost: judged ? 0.0001635 : 0,
      timestamp: new Date(T0 + n).toISOString(),
      ofMetricType: metric.id,
      measures: onCall ? { level: 'ToolCall', id: `span-${n}` } : { level: 'Session', id: sessionId },
      sessionId,
    };
  }
  return batch;
}

/** The sessions `resultBatch` results of the first `results` belong to (a store keeps a result only beside its session). */
export function resultSessions(results) {
  return Array.from({ length: Math.ceil(results / 100) }, (_, n) => ({
    kind: 'Session', id: `bench-session-${n}`, startTime: T0, endTime: T0 + 1, traceIds: [],
    masCalls: [], agentCalls: [], taskCalls: [], llmCalls: [], toolCalls: [], mcpServers: [],
  }));
}

/** A session of `spans` calls of every class (as in the store tests' big session). */
export function bigSession(id, spans) {
  const session = {
    kind: 'Session', id, startTime: T0, endTime: T0 + spans, serviceName: 'bench', traceIds: [`${id}-trace`],
    masCalls: [], agentCalls: [], taskCalls: [], llmCalls: [], toolCalls: [], mcpServers: [],
  };
  const mas = { kind: 'MASCall', id: `${id}-m0`, traceId: `${id}-trace`, name: 'workflow', startTime: T0, endTime: T0 + spans, status: 'ok' };
  session.masCalls.push(mas);
  let agentId = '';
  for (let i = 1; i < spans; i++) {
    const base = { id: `${id}-s${i}`, traceId: `${id}-trace`, masCallId: mas.id, startTime: T0 + i, endTime: T0 + i + 0.75, status: 'ok' };
    if (i % 50 === 1) {
      agentId = base.id;
      session.agentCalls.push({ ...base, kind: 'AgentCall', parentId: mas.id, name: `invoke_agent a${i}`, agentName: `a${i % 7}` });
    } else if (i % 4 === 0) {
      session.llmCalls.push({
        ...base, kind: 'LLMCall', parentId: agentId, agentCallId: agentId, name: 'chat', operation: 'chat', requestModel: 'gpt-4o-mini',
        usage: { inputTokens: 100 + i, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 120 + i },
        inputMessages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: `question ${i} `.repeat(5) }],
        outputMessages: [{ role: 'assistant', content: `answer ${i}` }], finishReasons: ['stop'], toolDefinitions: [],
      });
    } else if (i % 4 === 1) {
      session.taskCalls.push({ ...base, kind: 'TaskCall', parentId: agentId, agentCallId: agentId, name: 'task', taskName: `task${i}` });
    } else {
      session.toolCalls.push({ ...base, kind: 'ToolCall', parentId: agentId, agentCallId: agentId, name: 'tool', toolName: `tool${i % 9}`, arguments: { i }, result: `r${i}` });
    }
  }
  return session;
}
