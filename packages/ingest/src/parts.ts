/**
 * A session written in parts (files ingested by separate commands, a part streamed later than the window, a session
 * posted again): the part is reconciled with the stored session before the store merges it, so that the session
 * ends up as it would have been read at once, as far as the parts tell. This is part of the merge rules
 * (`mergeSessions`, the oracle every adapter follows). The rules are trace ingestion's (`ingest/normalise.ts`),
 * applied to the calls of both parts:
 *
 * 1. Parent links. A call whose chain of parent spans left its part names the missing parent span
 *    (`MISSING_PARENT_KEY`). When that span is a call of the session, it becomes the call's `parentId` and the mark
 *    is removed. A missing parent that is not a call (a plumbing span of another part, which is never stored) stays
 *    unresolved.
 *    One call in two spans: when the call and that parent are a pair the normaliser makes one call of (an LLM call
 *    in an LLM call, a tool call in a tool call of the same tool; `ingest/nested.ts`), the call is folded into the
 *    parent as the normaliser folds the inner span into the outer one, and leaves the session (a stored one is
 *    removed). Calls below it are linked to the call that took it.
 * 2. Nested workflows. A MAS call below an agent or MAS call is an inner workflow, so it becomes a TaskCall. This
 *    happens only while the session keeps a MAS call of its own: the implicit MAS calls the whole session would have
 *    instead cannot be made from the parts.
 * 3. MAS calls. A session with a workflow span has no implicit MAS call (id = trace id). Once the stored session or
 *    the part has an explicit MAS call, every implicit one is dropped, and a stored one is removed. Two implicit MAS
 *    calls of one trace become one call. Its window is the union of their windows. Its name, status and workflow
 *    name come from the part whose first span of the trace is a real root (it names no missing parent); if both or
 *    neither are, they come from the part that starts first.
 * 4. Links over the whole session. Every call takes the agent and MAS call that the normaliser gives: the nearest
 *    agent / MAS call up the parent links; else the attribution fallback (checkpoint namespace or agent name, over
 *    all agent calls) and the MAS window rules (over all MAS calls). When neither finds one, a link that still names
 *    a call of the right class is kept.
 * 5. Conversation ends. An agent or MAS call whose LLM calls changed takes its user input and final response from
 *    all of its LLM calls. Its LLM calls changed when a call joined or left it, when one took an inner call's fields,
 *    or when they came from the other part.
 *    The same holds for the session when both parts have LLM calls.
 */
import { allCalls, elementsAt, type AgentCall, type Call, type LLMCall, type MASCall, type Session, type TaskCall, type ToolCall } from '@mce/core';
import { AgentMatcher, checkpointNamespace } from './attribution.js';
import { finalAssistantResponse, firstUserInput } from './conversation.js';
import { groupBy, isImplicitMas, MasWindows, MISSING_PARENT_KEY, missingParentOf, nearestAncestor, taskNameOf } from './links.js';
import { foldLlmCalls, foldsInto, foldToolCalls } from './nested.js';

/** Header fields the whole session's calls decide, when they do. */
export type HeaderOverrides = Partial<Record<'startTime' | 'endTime', number> & Record<'userInput' | 'finalResponse', string>>;

export interface ReconciledPart {
  /**
   * What to upsert: the incoming part's header and MCP servers, its calls reconciled (in its order, without the
   * implicit MAS calls dropped), then the stored calls that changed.
   */
  session: Session;
  /**
   * Ids of stored calls the session no longer has: implicit MAS calls an explicit one replaced, inner spans of a call
   * folded into their outer span's call.
   */
  removed: string[];
  /**
   * Changes to the merged header: the times over the calls when an implicit MAS call was dropped or a call folded
   * into another (either may have widened them), the user input and final response of all LLM calls when both parts
   * have some.
   */
  header: HeaderOverrides;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const byStart = (a: { startTime: number; endTime: number }, b: { startTime: number; endTime: number }) =>
  a.startTime - b.startTime || a.endTime - b.endTime;

/** Two implicit MAS calls of one trace as one (rule 3); `stored` wins a tie. */
function joinImplicit(stored: MASCall, incoming: MASCall): MASCall {
  const rootless = (m: MASCall) => (missingParentOf(m) === undefined ? 0 : 1);
  const [rs, ri] = [rootless(stored), rootless(incoming)];
  const base = ri < rs || (ri === rs && incoming.startTime < stored.startTime) ? incoming : stored;
  return { ...base, startTime: Math.min(stored.startTime, incoming.startTime), endTime: Math.max(stored.endTime, incoming.endTime) };
}

/** A workflow span's MAS call as the TaskCall the normaliser makes of a nested one (rule 2). */
function asTask(m: MASCall): TaskCall {
  const { kind: _kind, workflowName: _workflow, userInput: _input, finalResponse: _response, ...base } = m;
  return { kind: 'TaskCall', ...base, taskName: taskNameOf(m) };
}

/** Reconcile `incoming` with the stored session (see the module comment). */
export function reconcilePart(stored: Session, incoming: Session): ReconciledPart {
  const storedCalls = allCalls(stored);
  const incomingCalls = allCalls(incoming);
  const storedById = new Map(storedCalls.map((c) => [c.id, c]));
  // The calls as the plain merge has them (a call id is one call; the incoming copy wins), stored ones first.
  const current = new Map<string, Call>(storedById);
  const fromIncoming = new Set<string>();
  for (const c of incomingCalls) {
    current.set(c.id, c);
    fromIncoming.add(c.id);
  }
  const prior = new Map(current);

  // 1. Parent links: the call's parentId, else its missing parent span when that is a call of the session now.
  const up = new Map<string, string>();
  const resolved = new Set<string>();
  for (const c of current.values()) {
    if (isImplicitMas(c)) continue;
    if (c.parentId !== undefined) {
      if (c.parentId !== c.id && current.has(c.parentId)) up.set(c.id, c.parentId);
      continue;
    }
    const missing = missingParentOf(c);
    const parent = missing === undefined ? undefined : current.get(missing);
    if (parent && parent.id !== c.id && !isImplicitMas(parent)) {
      up.set(c.id, parent.id);
      resolved.add(c.id);
    }
  }
  // The parts of a broken file may close a cycle: it is cut where its walk closes (a missing parent there stays so).
  const walked = new Map<string, boolean>(); // true: on the path being walked
  const path: string[] = [];
  for (const id of up.keys()) {
    path.length = 0;
    for (let x: string | undefined = id; x !== undefined && !walked.has(x); x = up.get(x)) {
      walked.set(x, true);
      path.push(x);
    }
    const last = path.at(-1);
    if (last !== undefined && walked.get(up.get(last) ?? '') === true) {
      up.delete(last);
      resolved.delete(last);
    }
    for (const x of path) walked.set(x, false);
  }

  // 1b. One call in two spans: the inner span's call folded into the outer one's (the outermost of a chain), in start
  // order as the normaliser folds them; what was linked to the inner call is linked to the call that took it.
  const foldedInto = new Map<string, string>();
  for (const id of resolved) {
    const inner = current.get(id) as Call;
    if (foldsInto(current.get(up.get(id) as string) as Call, inner)) foldedInto.set(id, up.get(id) as string);
  }
  const relinked = new Set<string>();
  const foldedLlm = new Set<string>();
  if (foldedInto.size > 0) {
    const outermost = (id: string) => {
      let x = id;
      while (foldedInto.has(x)) x = foldedInto.get(x) as string;
      return x;
    };
    for (const inner of [...foldedInto.keys()].map((id) => current.get(id) as Call).sort(byStart)) {
      const keptId = outermost(inner.id);
      const kept = current.get(keptId) as Call;
      if (kept.kind === 'LLMCall') {
        current.set(keptId, foldLlmCalls(kept, inner as LLMCall));
        foldedLlm.add(keptId);
      } else current.set(keptId, foldToolCalls(kept as ToolCall, inner as ToolCall));
    }
    for (const id of foldedInto.keys()) {
      current.delete(id);
      up.delete(id);
      resolved.delete(id);
    }
    for (const [id, parent] of up) {
      if (!foldedInto.has(parent)) continue;
      up.set(id, outermost(parent));
      relinked.add(id);
    }
  }

  // 2. Nested workflows, while the session keeps a MAS call of its own.
  const explicit = [...current.values()].filter((c): c is MASCall => c.kind === 'MASCall' && !isImplicitMas(c));
  const nestedIn = nearestAbove(up, current, (c) => c.kind === 'AgentCall' || (c.kind === 'MASCall' && !isImplicitMas(c)));
  const nested = explicit.filter((m) => nestedIn(m.id) !== undefined);
  if (nested.length < explicit.length) for (const m of nested) current.set(m.id, asTask(m));

  // 3. Implicit MAS calls.
  const dropped = new Set<string>();
  const joined = new Set<string>();
  const masCalls = [...current.values()].filter((c): c is MASCall => c.kind === 'MASCall');
  if (masCalls.some((m) => !isImplicitMas(m))) {
    for (const m of masCalls) if (isImplicitMas(m)) dropped.add(m.id);
  } else {
    for (const m of masCalls) {
      const before = storedById.get(m.id);
      if (!fromIncoming.has(m.id) || before?.kind !== 'MASCall' || !isImplicitMas(before)) continue;
      current.set(m.id, joinImplicit(before, m));
      joined.add(m.id);
    }
  }
  for (const id of dropped) current.delete(id);
  const calls = [...current.values()];

  // 4. Agent and MAS call of every call, over the whole session.
  const agentAbove = nearestAbove(up, current, (c) => c.kind === 'AgentCall');
  const masAbove = nearestAbove(up, current, (c) => c.kind === 'MASCall');
  const agents = calls.filter((c): c is AgentCall => c.kind === 'AgentCall').sort(byStart);
  const matcher = new AgentMatcher(
    agents.map((a) => {
      const namespace = checkpointNamespace({ attributes: a.attributes ?? {} });
      return { id: a.id, name: a.agentName, ...(namespace === undefined ? {} : { namespace }), start: a.startTime, end: a.endTime };
    }),
  );
  const windows = new MasWindows(calls.filter((c): c is MASCall => c.kind === 'MASCall').sort(byStart));
  const isClass = (id: string | undefined, kind: Call['kind'], self: string) => id !== undefined && id !== self && current.get(id)?.kind === kind;
  for (const c of calls) {
    if (isImplicitMas(c)) continue;
    const parentId = resolved.has(c.id) || relinked.has(c.id) ? up.get(c.id) : c.parentId;
    const ownAgent = isClass(c.agentCallId, 'AgentCall', c.id) ? c.agentCallId : undefined;
    const ownMas = isClass(c.masCallId, 'MASCall', c.id) ? c.masCallId : undefined;
    const top = c.kind === 'AgentCall' || c.kind === 'MASCall';
    const agentCallId = agentAbove(c.id) ?? (top ? undefined : matcher.match({ attributes: c.attributes ?? {}, startTime: c.startTime })) ?? ownAgent;
    const masCallId = c.kind === 'MASCall' ? ownMas : (masAbove(c.id) ?? windows.of(c.traceId, c.startTime) ?? ownMas);
    if (parentId === c.parentId && agentCallId === c.agentCallId && masCallId === c.masCallId && !resolved.has(c.id)) continue;
    const next = { ...c } as Mutable<Call>;
    setOrDelete(next, 'parentId', parentId);
    setOrDelete(next, 'agentCallId', agentCallId);
    setOrDelete(next, 'masCallId', masCallId);
    if (resolved.has(c.id) && c.attributes) {
      const { [MISSING_PARENT_KEY]: _resolved, ...rest } = c.attributes;
      next.attributes = rest;
    }
    current.set(c.id, next);
  }

  // 5. User input and final response of the agent and MAS calls whose LLM calls changed, and of the session.
  const touched = new Set<string>(joined);
  for (const id of foldedInto.keys()) {
    const before = prior.get(id) as Call;
    if (before.kind !== 'LLMCall') continue;
    if (before.agentCallId !== undefined) touched.add(before.agentCallId);
    if (before.masCallId !== undefined) touched.add(before.masCallId);
  }
  const llmCalls = [...current.values()].filter((c): c is LLMCall => c.kind === 'LLMCall').sort(byStart);
  for (const l of llmCalls) {
    const before = prior.get(l.id) as Call;
    for (const key of ['agentCallId', 'masCallId'] as const) {
      const now = l[key];
      if (before[key] !== now) {
        if (before[key] !== undefined) touched.add(before[key]);
        if (now !== undefined) touched.add(now);
      } else if (now !== undefined && (foldedLlm.has(l.id) || fromIncoming.has(l.id) !== fromIncoming.has(now))) touched.add(now);
    }
  }
  if (touched.size > 0) {
    const byAgent = groupBy(llmCalls, (c) => c.agentCallId);
    const byMas = groupBy(llmCalls, (c) => c.masCallId);
    for (const id of touched) {
      const call = current.get(id);
      if (!call || (call.kind !== 'AgentCall' && call.kind !== 'MASCall')) continue;
      const own = (call.kind === 'AgentCall' ? byAgent : byMas).get(id) ?? [];
      const userInput = firstUserInput(own);
      const finalResponse = finalAssistantResponse(own);
      if (userInput === call.userInput && finalResponse === call.finalResponse) continue;
      const next = { ...call };
      setOrDelete(next, 'userInput', userInput);
      setOrDelete(next, 'finalResponse', finalResponse);
      current.set(id, next);
    }
  }
  const header: HeaderOverrides = {};
  if (stored.llmCalls.some((c) => !fromIncoming.has(c.id)) && incoming.llmCalls.length > 0) {
    const userInput = firstUserInput(llmCalls);
    const finalResponse = finalAssistantResponse(llmCalls);
    if (userInput !== undefined) header.userInput = userInput;
    if (finalResponse !== undefined) header.finalResponse = finalResponse;
  }
  if ((dropped.size > 0 || foldedInto.size > 0) && current.size > 0) {
    let startTime = Number.POSITIVE_INFINITY;
    let endTime = Number.NEGATIVE_INFINITY;
    for (const c of current.values()) {
      startTime = Math.min(startTime, c.startTime);
      endTime = Math.max(endTime, c.endTime);
    }
    Object.assign(header, { startTime, endTime });
  }

  // The write: the incoming calls (each id once, at its first place), then the stored calls that changed.
  const session: Session = { ...incoming, masCalls: [], agentCalls: [], taskCalls: [], llmCalls: [], toolCalls: [] };
  const written = new Set<string>();
  for (const c of incomingCalls) {
    const value = current.get(c.id);
    if (!value || written.has(c.id)) continue;
    written.add(c.id);
    (elementsAt(session, value.kind) as Call[]).push(value);
  }
  for (const [id, value] of current) if (!written.has(id) && value !== storedById.get(id)) (elementsAt(session, value.kind) as Call[]).push(value);
  return { session, removed: [...dropped, ...foldedInto.keys()].filter((id) => storedById.has(id)), header };
}

function setOrDelete<T extends object>(o: T, key: string, value: unknown): void {
  if (value === undefined) delete (o as Record<string, unknown>)[key];
  else (o as Record<string, unknown>)[key] = value;
}

/** The nearest call above a call (following `up`, call ids) that `pred` holds for (an id that is no call is climbed past). */
function nearestAbove(up: ReadonlyMap<string, string>, calls: ReadonlyMap<string, Call>, pred: (c: Call) => boolean): (id: string) => string | undefined {
  return nearestAncestor(
    (id: string) => up.get(id),
    (id) => {
      const call = calls.get(id);
      return call !== undefined && pred(call);
    },
  );
}
