/**
 * A real trace made big: the 126 rows of the ClickHouse fixture langgraph_llamaindex_linear_5_agents.json (a
 * five-agent LangGraph/LlamaIndex pipeline, packages/ingest/test/data/fixtures/clickhouse-otel-traces/README.md)
 * copied until the file holds the spans asked for, each copy a session of its own: its trace, span and parent ids
 * and its session id changed, every other byte as recorded.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REAL_TRACE = fileURLToPath(new URL('../../packages/ingest/test/data/fixtures/clickhouse-otel-traces/langgraph_llamaindex_linear_5_agents.json', import.meta.url));

/** `id` with its first four hex digits replaced by the copy's number (copies up to 65,535 stay distinct). */
const copyId = (id, copy) => (typeof id === 'string' && id.length >= 16 ? copy.toString(16).padStart(4, '0') + id.slice(4) : id);

/**
 * Writes whole copies of the fixture to `out` as one JSON list, as many as reach `spans` rows (5,000 → 40 copies, 5,040
 * rows: a copy cut short would be a session with missing parents, and its warning would cost a rescan of the file);
 * returns the numbers of copies and rows.
 */
export function writeReplicatedTrace(out, spans) {
  const rows = JSON.parse(readFileSync(REAL_TRACE, 'utf8'));
  const session = rows[0].sessionId;
  const pieces = [];
  const copies = Math.max(1, Math.ceil(spans / rows.length));
  for (let c = 0; c < copies; c++) {
    const sessionCopy = `${session}-copy${c}`;
    for (const row of rows) {
      const copy = { ...row, TraceId: copyId(row.TraceId, c), SpanId: copyId(row.SpanId, c), ParentSpanId: copyId(row.ParentSpanId, c) };
      // The session id is in the row's columns and inside its attribute text: every mention of it changes.
      pieces.push(JSON.stringify(copy).replaceAll(session, sessionCopy));
    }
  }
  writeFileSync(out, `[\n${pieces.join(',\n')}\n]\n`);
  return { copies, rows: pieces.length };
}
