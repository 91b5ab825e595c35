/**
 * A real trace made big: the 126 rows of the ClickHouse fixture langgraph_llamaindex_linear_5_agents.json (a
 * five-agent LangGraph/LlamaIndex pipeline, packages/client/test/data/fixtures/clickhouse-otel-traces/README.md)
 * copied until the file holds the spans asked for, each copy a session of its own: its trace, span and parent ids
 * and its session id changed, every other byte as recorded.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REAL_TRACE = fileURLToPath(new URL('../../packages/client/test/data/fixtures/clickhouse-otel-traces/langgraph_llamaindex_linear_5_agents.json', import.meta.url));

/** `id` with its first four hex digits replaced by the copy's number (copies up to 65,535 stay distinct). */
const copyId = (id, copy) => (typeof id === 'string' && id.length >= 16 ? copy.toString(16).padStart(4, '0') + id.slice(4) : id);

/** Writes `spans` rows of copies of the fixture to `out` as one JSON list; returns the number of copies. */
export function writeReplicatedTrace(out, spans) {
  const rows = JSON.parse(readFileSync(REAL_TRACE, 'utf8'));
  const session = rows[0].sessionId;
  const pieces = [];
  let copies = 0;
  for (let n = 0; n < spans; copies++) {
    const sessionCopy = `${session}-copy${copies}`;
    for (const row of rows) {
      if (n++ >= spans) break;
      const copy = { ...row, TraceId: copyId(row.TraceId, copies), SpanId: copyId(row.SpanId, copies), ParentSpanId: copyId(row.ParentSpanId, copies) };
      // The session id is in the row's columns and inside its attribute text: every mention of it changes.
      pieces.push(JSON.stringify(copy).replaceAll(session, sessionCopy));
    }
  }
  writeFileSync(out, `[\n${pieces.join(',\n')}\n]\n`);
  return copies;
}
