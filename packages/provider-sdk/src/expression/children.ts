/**
 * The children of an element at a level: for a session every call of that level; for a call, the calls below it
 * (its descendants through parent spans, or those that name it as their agent or MAS call when a parent span is not
 * part of the session). Indexed in one pass per session, so that a metric at a level with many elements (every LLM
 * call of a large session) looks its children up instead of scanning the session for each.
 */
import { CALL_LISTS, type Call, type CallLevel, type Element, type OntologyLevel, type Session } from '@mce/core';

type ChildIndex = Map<string, Partial<Record<CallLevel, Call[]>>>;
const indexes = new WeakMap<Session, ChildIndex>();
const NONE: readonly Call[] = Object.freeze([]);

/** The ids a call is below: its parent chain, its agent call and its MAS call (a few, so a list). */
function ancestorsOf(call: Call, byId: ReadonlyMap<string, Call>): string[] {
  const ancestors: string[] = [];
  // A cycle of parent ids in a broken trace ends the walk at the first id seen twice.
  for (let parent = call.parentId; parent !== undefined && parent !== call.id && !ancestors.includes(parent); parent = byId.get(parent)?.parentId) {
    ancestors.push(parent);
  }
  for (const id of [call.agentCallId, call.masCallId]) if (id && id !== call.id && !ancestors.includes(id)) ancestors.push(id);
  return ancestors;
}

function childIndex(session: Session): ChildIndex {
  let index = indexes.get(session);
  if (index) return index;
  const byId = new Map<string, Call>();
  for (const list of Object.values(CALL_LISTS)) for (const call of session[list] as Call[]) byId.set(call.id, call);
  index = new Map();
  for (const [level, list] of Object.entries(CALL_LISTS) as [CallLevel, keyof Session][]) {
    for (const call of session[list] as Call[]) {
      for (const ancestor of ancestorsOf(call, byId)) {
        let byLevel = index.get(ancestor);
        if (!byLevel) index.set(ancestor, (byLevel = {}));
        (byLevel[level] ??= []).push(call);
      }
    }
  }
  indexes.set(session, index);
  return index;
}

export function childrenAt(session: Session, element: Element, elementLevel: OntologyLevel, level: CallLevel): readonly Call[] {
  if (elementLevel === 'Session') return session[CALL_LISTS[level]] as Call[];
  return childIndex(session).get(element.id)?.[level] ?? NONE;
}
