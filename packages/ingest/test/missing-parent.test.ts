/**
 * A part of a session (spans of one `mce ingest` among several): a call whose chain of parent spans leaves the part
 * keeps the id of the missing parent span, so that the store can link it when it joins the parts.
 */
import { describe, expect, it } from 'vitest';
import { MISSING_PARENT_KEY, normaliseSession, WarningSink, type SpanRecord } from '../src/index.js';

const T = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const id = (n: string) => n.padStart(16, '0');
function span(n: string, attrs: Record<string, unknown>, start: number, parent?: string): SpanRecord {
  return {
    traceId: T,
    spanId: id(n),
    ...(parent ? { parentSpanId: id(parent) } : {}),
    name: String(attrs.name ?? n),
    kind: 'internal',
    startTime: start,
    endTime: start + 5,
    status: { code: 'unset' },
    attributes: attrs,
    resource: {},
    events: [],
  };
}
const chat = { 'gen_ai.operation.name': 'chat' };
const agent = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a' };
const http = { 'http.method': 'POST' };

describe('calls whose parent span is not among the spans', () => {
  it('keep the missing span id on the call at the top of the chain, directly or through plumbing spans', () => {
    const warnings = new WarningSink();
    const s = normaliseSession('part', [
      span('1', agent, 10, '9'), // its parent (a workflow span, say) is in another part
      span('2', chat, 11, '1'),
      span('3', http, 12, '8'), // an HTTP span whose parent is missing, above an LLM call
      span('4', chat, 13, '3'),
      span('5', chat, 14), // a real root
    ], { warnings });
    const byId = new Map(s.llmCalls.map((c) => [c.id, c]));
    expect(s.agentCalls[0]?.attributes).toEqual({ ...agent, [MISSING_PARENT_KEY]: id('9') });
    expect(s.agentCalls[0]?.parentId).toBeUndefined();
    // Its child has its parent here: nothing to add.
    expect(byId.get(id('2'))?.attributes).toEqual(chat);
    expect(byId.get(id('2'))?.parentId).toBe(id('1'));
    // Through the HTTP span: the chain leaves the part at span 8.
    expect(byId.get(id('4'))?.attributes).toEqual({ ...chat, [MISSING_PARENT_KEY]: id('8') });
    expect(byId.get(id('5'))?.attributes).toEqual(chat);
    expect(warnings.counts).toEqual({ 'unknown-parent': 1 });
  });

  it('an implicit MAS call says when its first parentless span has a parent elsewhere (it is not the trace root)', () => {
    const orphaned = normaliseSession('part', [span('2', chat, 11, '1')], { warnings: new WarningSink() });
    expect(orphaned.masCalls).toEqual([
      { kind: 'MASCall', id: T, traceId: T, name: '2', startTime: 11, endTime: 16, status: 'unset', attributes: { [MISSING_PARENT_KEY]: id('1') } },
    ]);
    const rooted = normaliseSession('part', [span('1', { name: 'root' }, 10), span('2', chat, 11, '1')], { warnings: new WarningSink() });
    expect(rooted.masCalls).toEqual([{ kind: 'MASCall', id: T, traceId: T, name: 'root', startTime: 10, endTime: 16, status: 'unset' }]);
  });

  it('the key is reserved: a span of the source that carries it loses it, unless its parent is missing', () => {
    const s = normaliseSession('own', [span('1', { ...chat, [MISSING_PARENT_KEY]: 'forged' }, 10), span('2', { ...chat, [MISSING_PARENT_KEY]: 'forged' }, 11, '7')], {
      warnings: new WarningSink(),
    });
    expect(s.llmCalls.map((c) => c.attributes)).toEqual([chat, { ...chat, [MISSING_PARENT_KEY]: id('7') }]);
  });

  it('the warning names the first five spans whose parent is missing, and counts the others', () => {
    const message = (n: number) => {
      const warnings = new WarningSink();
      normaliseSession('part', Array.from({ length: n }, (_, i) => span(String(i + 1), chat, 10 + i, `f${i + 1}`)), { warnings });
      return warnings.list.map((w) => [w.code, w.message]);
    };
    const pairs = (n: number) => Array.from({ length: n }, (_, i) => `${id(String(i + 1))} → ${id(`f${i + 1}`)}`).join(', ');
    const tail = ': they are roots here, linked through that parent only once the store holds it as a call (another part of the session)';
    expect(message(5)).toEqual([['unknown-parent', `5 span(s) of session part name a parent span that is not among its spans (span → missing parent: ${pairs(5)})${tail}`]]);
    expect(message(6)).toEqual([['unknown-parent', `6 span(s) of session part name a parent span that is not among its spans (span → missing parent: ${pairs(5)}, … (1 more))${tail}`]]);
  });

  it('a broken parent cycle is cut, not reported as a missing parent', () => {
    const s = normaliseSession('cycle', [span('1', chat, 10, '2'), span('2', agent, 11, '1')], { warnings: new WarningSink() });
    for (const c of [...s.agentCalls, ...s.llmCalls]) expect(c.attributes?.[MISSING_PARENT_KEY]).toBeUndefined();
  });
});
