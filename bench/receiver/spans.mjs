/**
 * The spans of one benchmark session (OTLP/JSON shape, GenAI attributes): a workflow, 3 agents, then task, LLM and
 * tool spans under them; in export order (children before their parents, the root last, holding the session id).
 */
const hex = (n, width) => n.toString(16).padStart(width, '0');
const T0 = 1764576000000;
const kv = (key, v) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } });

function span(traceId, spanId, parent, name, start, end, attributes) {
  return { traceId, spanId, ...(parent ? { parentSpanId: parent } : {}), name, kind: 1, startTimeUnixNano: `${start}000000`, endTimeUnixNano: `${end}000000`, attributes };
}

export function* sessionSpans(s, perSession) {
  const traceId = hex(s + 1, 32);
  const base = T0 + s * 60_000;
  const id = (i) => hex(s * 100_000 + i + 1, 16);
  const agents = [1, 2, 3].map(id);
  for (let i = 4; i < perSession; i++) {
    const a = i % 3;
    const start = base + a * 15_000 + i * 10;
    if (i % 2 === 0) {
      yield span(traceId, id(i), agents[a], 'chat gpt-4o-mini', start, start + 8, [
        kv('gen_ai.operation.name', 'chat'), kv('gen_ai.provider.name', 'openai'), kv('gen_ai.request.model', 'gpt-4o-mini'),
        kv('gen_ai.usage.input_tokens', 500 + (i % 50)), kv('gen_ai.usage.output_tokens', 20 + (i % 9)),
        kv('gen_ai.input.messages', `[{"role":"user","parts":[{"type":"text","content":"Question ${s}/${i}"}]}]`),
        kv('gen_ai.output.messages', `[{"role":"assistant","parts":[{"type":"text","content":"Answer ${i}"}],"finish_reason":"stop"}]`),
      ]);
    } else {
      yield span(traceId, id(i), agents[a], 'execute_tool search', start, start + 5, [
        kv('gen_ai.operation.name', 'execute_tool'), kv('gen_ai.tool.name', 'search'), kv('gen_ai.tool.call.id', `call_${i}`),
        kv('gen_ai.tool.call.arguments', `{"query":"item ${i}"}`), kv('gen_ai.tool.call.result', `{"hits":${i % 7}}`),
      ]);
    }
  }
  for (let a = 0; a < 3; a++) {
    yield span(traceId, agents[a], id(0), `invoke_agent agent_${a}`, base + a * 15_000, base + (a + 1) * 15_000, [kv('gen_ai.operation.name', 'invoke_agent'), kv('gen_ai.agent.name', `agent_${a}`)]);
  }
  yield span(traceId, id(0), undefined, 'invoke_workflow planner', base, base + 50_000, [kv('gen_ai.operation.name', 'invoke_workflow'), kv('gen_ai.conversation.id', `session-${s}`)]);
}
