/**
 * The children of an element at a level: for a session every call of that level; for a call, the calls below it
 * (its descendants through parent spans, or those that name it as their agent or MAS call when a parent span is not
 * part of the session). Indexed once per session and root.
 */
import { CALL_LISTS, type Call, type CallLevel, type Element, type OntologyLevel, type Session } from '@mce/core';

const byId = new WeakMap<Session, Map<string, Call>>();
const under = new WeakMap<Session, Map<string, Call[]>>();

function callIndex(session: Session): Map<string, Call> {
  let index = byId.get(session);
  if (!index) {
    index = new Map();
    for (const list of Object.values(CALL_LISTS)) for (const call of session[list] as Call[]) index.set(call.id, call);
    byId.set(session, index);
  }
  return index;
}

function isBelow(call: Call, rootId: string, index: Map<string, Call>): boolean {
  if (call.agentCallId === rootId || call.masCallId === rootId) return true;
  const seen = new Set<string>();
  for (let parent = call.parentId; parent !== undefined && !seen.has(parent); parent = index.get(parent)?.parentId) {
    if (parent === rootId) return true;
    seen.add(parent); // a cycle of parent ids in a broken trace ends the walk
  }
  return false;
}

export function childrenAt(session: Session, element: Element, elementLevel: OntologyLevel, level: CallLevel): readonly Call[] {
  const all = session[CALL_LISTS[level]] as Call[];
  if (elementLevel === 'Session') return all;
  let byRoot = under.get(session);
  if (!byRoot) under.set(session, (byRoot = new Map()));
  const key = `${element.id}\u0000${level}`;
  let children = byRoot.get(key);
  if (!children) {
    const index = callIndex(session);
    children = all.filter((call) => call !== element && isBelow(call, element.id, index));
    byRoot.set(key, children);
  }
  return children;
}
