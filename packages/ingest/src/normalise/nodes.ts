/**
 * Step 1: the session's spans as a tree of nodes — deduplicated by span id, classified by the dialect tables, in
 * start order, each linked to its parent when the parent is among the spans; a parent cycle cut; parents that are
 * not among the spans said once per session.
 */
import { classify, type Classification } from '../dialects/index.js';
import { errorMessage } from '../errors.js';
import type { SpanRecord } from '../span.js';
import type { Context, Node } from './node.js';

export interface SpanTree {
  /** The spans in start order (then end order), copies included. */
  ordered: SpanRecord[];
  byId: Map<string, Node>;
  /** One node per span id, in start order. */
  nodes: Node[];
}

export function buildTree(spans: readonly SpanRecord[], ctx: Context): SpanTree {
  const ordered = [...spans].sort((a, b) => a.startTime - b.startTime || a.endTime - b.endTime);
  const byId = classifiedNodes(ordered, ctx);
  const nodes = [...byId.values()];
  linkParents(nodes, byId, ctx);
  cutCycles(nodes);
  return { ordered, byId, nodes };
}

/** A node per span id (the first copy kept, a copy said where it dropped); a span that cannot be classified skipped. */
export function classifiedNodes(ordered: readonly SpanRecord[], ctx: Context): Map<string, Node> {
  const { sessionId } = ctx;
  const byId = new Map<string, Node>();
  for (const span of ordered) {
    if (byId.has(span.spanId)) {
      // Named where the copy dropped is.
      ctx.warnAbout(span, { code: 'duplicate-span', message: `span ${span.spanId} (${span.name}) appears twice; the first copy is kept`, span: span.spanId, sessionId });
      continue;
    }
    let cls: Classification;
    try {
      cls = classify(span);
    } catch (err) {
      ctx.warnAbout(span, { code: 'malformed-span', message: `skipped span ${span.spanId} (${span.name}): ${errorMessage(err)}`, span: span.spanId, sessionId });
      continue;
    }
    byId.set(span.spanId, { span, cls });
  }
  return byId;
}

/** Each node's parent, when its parent span is among these; the others said once (`unknown-parent`). */
export function linkParents(nodes: readonly Node[], byId: ReadonlyMap<string, Node>, ctx: Context): void {
  const orphans: string[] = [];
  let firstOrphan: SpanRecord | undefined;
  for (const n of nodes) {
    const p = n.span.parentSpanId ? byId.get(n.span.parentSpanId) : undefined;
    if (n.span.parentSpanId && !p) {
      orphans.push(`${n.span.spanId} → ${n.span.parentSpanId}`);
      firstOrphan ??= n.span;
    }
    if (p && p !== n) n.parent = p;
  }
  if (firstOrphan === undefined) return;
  // Once per session: a parent outside the spans at hand (another file, a part of the session streamed earlier,
  // a span that was never exported) cannot link these calls to the agent or MAS call above them here. The calls keep
  // its id (MISSING_PARENT_KEY), so the store can, if it is a call of the session there. Named where the first span
  // listed is.
  const shown = orphans.slice(0, 5).join(', ') + (orphans.length > 5 ? `, … (${orphans.length - 5} more)` : '');
  ctx.warnAbout(firstOrphan, {
    code: 'unknown-parent',
    message: `${orphans.length} span(s) of session ${ctx.sessionId} name a parent span that is not among its spans (span → missing parent: ${shown}): they are roots here, linked through that parent only once the store holds it as a call (another part of the session)`,
    sessionId: ctx.sessionId,
  });
}

/**
 * A parent cycle in a broken file is cut where its walk closes. Each chain is walked once (a check per span that
 * climbed all its ancestors took minutes on a 200,000-span chain).
 */
export function cutCycles(nodes: readonly Node[]): void {
  const walked = new Map<Node, 'on-path' | 'done'>();
  for (const n of nodes) {
    if (walked.has(n)) continue;
    const path: Node[] = [];
    let q: Node | undefined = n;
    while (q && !walked.has(q)) {
      walked.set(q, 'on-path');
      path.push(q);
      q = q.parent;
    }
    if (q && walked.get(q) === 'on-path') (path[path.length - 1] as Node).parent = undefined;
    for (const x of path) walked.set(x, 'done');
  }
}
