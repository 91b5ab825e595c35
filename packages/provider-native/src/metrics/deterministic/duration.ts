import { ONTOLOGY_LEVELS, type Call, type OntologyLevel, type Session } from '@mce/core';
import { fmt, nativeMetric } from './define.js';
import { elementSpan } from './session-index.js';

/** Kind and id apart, so that no name string is built for the calls that have a valid duration (nearly all). */
function checkedDuration(kind: string, id: string, start: number, end: number): number {
  if (!Number.isFinite(start) || !Number.isFinite(end)) {
    throw new Error(`${kind} ${id}: start/end time must be finite numbers (got ${start}, ${end})`);
  }
  if (end < start) throw new Error(`${kind} ${id}: ends before it starts (start ${start}, end ${end})`);
  return end - start;
}

const CALL_REASONING: Readonly<Record<OntologyLevel, string>> = Object.freeze(
  Object.fromEntries(ONTOLOGY_LEVELS.map((level) => [level, `End time minus start time of the ${level}, in ms.`])) as Record<
    OntologyLevel,
    string
  >,
);

export const Duration = nativeMetric(
  'Duration',
  {
    levels: ONTOLOGY_LEVELS,
    nature: 'deterministic',
    unit: 'ms',
    valueRange: 'non-negative number',
    description:
      'Wall-clock duration in milliseconds: end − start of the element. For a Session: from the earliest start to ' +
      'the latest end of all its elements (MAS, agent, task, LLM and tool calls; an element without valid times is ' +
      'left out and counted in details), or the session\'s own start/end when it has no elements.',
    requirements: ['startTime', 'endTime'],
  },
  (element, ctx) => {
    if (ctx.level === 'Session') {
      const session = element as Session;
      const span = elementSpan(session);
      if (!span) {
        const value = checkedDuration('Session', session.id, session.startTime, session.endTime);
        return { value, reasoning: `Session has no elements; its own start to end is ${fmt(value)} ms.` };
      }
      const value = checkedDuration('Session', session.id, span.start, span.end);
      const ignored = span.ignored > 0 ? ` (${span.ignored} element(s) without valid times left out)` : '';
      return {
        value,
        reasoning: `Earliest start to latest end of the session's ${span.elements} elements${ignored}: ${fmt(value)} ms.`,
        ...(span.ignored > 0 ? { details: { elements: span.elements, ignored: span.ignored } } : {}),
      };
    }
    const call = element as Call;
    const value = checkedDuration(ctx.level, call.id, call.startTime, call.endTime);
    // A fixed sentence per level: call-level results are the bulk of a run, and the value is in `result`.
    return { value, reasoning: CALL_REASONING[ctx.level] };
  },
);
