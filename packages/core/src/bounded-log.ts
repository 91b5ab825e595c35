/**
 * Log fields cut to a bounded size (pino's `formatters.log`): a line naming 100,000 unknown session ids was 1.79 MB.
 * Strings keep their first MAX_LOG_TEXT characters, lists their first MAX_LOG_ITEMS items, each saying what was left
 * out; nested objects are bounded the same way, a few levels deep.
 */
export const MAX_LOG_TEXT = 2000;
export const MAX_LOG_ITEMS = 20;

export function boundLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  return bound(fields, 0) as Record<string, unknown>;
}

function bound(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length <= MAX_LOG_TEXT ? value : `${value.slice(0, MAX_LOG_TEXT)}… (${value.length} characters)`;
  if (value === null || typeof value !== 'object' || depth > 4) return value;
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_LOG_ITEMS).map((item) => bound(item, depth + 1));
    return value.length <= MAX_LOG_ITEMS ? kept : [...kept, `… (+${value.length - MAX_LOG_ITEMS} more)`];
  }
  if (value instanceof Error) return value; // pino's serializer writes it (its message and stack are bounded there)
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = bound(item, depth + 1);
  return out;
}
