/** Session assembly as spans arrive: held until their session's id is seen, put back after a failed write, due when idle. */
import { describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../../ingest/src/span.js';
import { SessionAssembler } from '../../src/receiver/assembly.js';

const span = (spanId: string, parent: string | undefined, attributes: Record<string, unknown> = {}): SpanRecord => ({
  traceId: 't'.repeat(32), spanId, ...(parent ? { parentSpanId: parent } : {}), name: spanId, kind: 'internal', startTime: 1, endTime: 2,
  status: { code: 'unset' }, attributes, resource: {}, events: [],
});
const ids = (spans: SpanRecord[]) => spans.map((s) => s.spanId);

describe('SessionAssembler', () => {
  it('holds a trace until a span names its session, then stores it all under that session', () => {
    const a = new SessionAssembler({ completeOnRoot: false });
    expect(a.add([span('c1', 'r'), span('c2', 'r')], 0)).toEqual([]);
    expect(a.pendingSpans).toBe(2);
    const [part] = a.add([span('r', undefined, { 'session.id': 's1' })], 10);
    expect([part!.sessionId, ids(part!.spans), ids(part!.fromPending)]).toEqual(['s1', ['r', 'c1', 'c2'], ['c1', 'c2']]);
    // Later spans of the trace join the session without a key of their own.
    expect(a.add([span('c3', 'r')], 20).map((p) => p.sessionId)).toEqual(['s1']);
  });

  it('spans put back after a failed write are stored under their session when due, not under the trace', () => {
    const a = new SessionAssembler({ completeOnRoot: false });
    a.add([span('c1', 'r')], 0);
    const [part] = a.add([span('r', undefined, { 'session.id': 's1' })], 0);
    a.restore(part!, 0);
    expect(a.pendingSpans).toBe(1);
    const due = a.due(1000, 500);
    expect(due.parts.map((p) => [p.sessionId, ids(p.spans)])).toEqual([['s1', ['c1']]]);
    expect(due.complete).toEqual(['s1']);
  });

  it('a trace that never names its session is due as a session of its own once idle; a root completes its session at once', () => {
    const a = new SessionAssembler({ completeOnRoot: true });
    a.add([span('c1', 'r')], 0);
    expect(a.due(100, 500)).toEqual({ parts: [], complete: [] });
    const due = a.due(600, 500);
    expect(due.parts.map((p) => p.sessionId)).toEqual(['t'.repeat(32)]);
    expect(due.complete).toEqual(['t'.repeat(32)]); // idle since its last span: complete as it is stored
    expect(a.due(601, 500).complete).toEqual([]);
    expect(a.add([{ ...span('x', undefined, { 'session.id': 's2' }), traceId: 'u'.repeat(32) }], 700).map((p) => p.sessionId)).toEqual(['s2']);
    expect(a.due(701, 500).complete).toEqual(['s2']);
  });
});
