/**
 * A result query as people and HTTP clients type it (`GET /results` query parameters, `mce kg results` options):
 * strings checked with zod into a `ResultQuery`, a bad value named by its parameter or option.
 */
import { MceError } from '@mce/core';
import { z } from 'zod';
import { ONTOLOGY_LEVELS, type OntologyLevel } from '@mce/core';
import { parseTimeText } from './rows.js';
import type { ResultQuery } from './types.js';

export const RESULT_QUERY_FIELDS = ['metrics', 'levels', 'sessionIds', 'from', 'to', 'min', 'max', 'limit', 'offset'] as const;
export type ResultQueryField = (typeof RESULT_QUERY_FIELDS)[number];

/** Each field's values as given: every value of a repeated query parameter or option, in order. */
export type ResultQueryText = Partial<Record<ResultQueryField, readonly string[]>>;

/** How the caller names a field to its user: `label` leads a message (`query parameter from`), `name` is the bare name. */
export interface FieldNaming {
  label(field: ResultQueryField): string;
  name(field: ResultQueryField): string;
}

/** Bad input: the message names the parameter or option. */
export class ResultQueryTextError extends MceError {
  readonly kind = 'bad-input' as const;
  override name = 'ResultQueryTextError';
}

const LEVELS_BY_LOWER = new Map<string, OntologyLevel>(ONTOLOGY_LEVELS.map((level) => [level.toLowerCase(), level]));
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** `A,B` or the value repeated: the non-empty names of all values. */
const commaList = (what: string) =>
  z
    .array(z.string())
    .transform((values) => values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean))
    .refine((list) => list.length > 0, `must name at least one ${what}`);

/** One value, parsed by `parse` (undefined: not valid, said as `expected`). */
function single<T>(parse: (text: string) => T | undefined, expected: string) {
  return z.array(z.string()).transform((values, ctx): T => {
    if (values.length > 1) {
      ctx.addIssue({ code: 'custom', message: 'is given more than once' });
      return z.NEVER;
    }
    const text = values[0] ?? '';
    const parsed = parse(text);
    if (parsed === undefined) {
      ctx.addIssue({ code: 'custom', message: `must be ${expected} (got ${JSON.stringify(text)})` });
      return z.NEVER;
    }
    return parsed;
  });
}

const time = single((text) => {
  try {
    return parseTimeText(text);
  } catch {
    return undefined;
  }
}, 'an ISO 8601 time or epoch milliseconds');
const number = single((text) => (NUMBER.test(text.trim()) && Number.isFinite(Number(text)) ? Number(text) : undefined), 'a number');
const count = single((text) => (/^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined), 'a non-negative integer');

function schema(naming: FieldNaming) {
  return z
    .object({
      metrics: commaList('metric').optional(),
      levels: commaList('level')
        .transform((list, ctx) => {
          const levels = list.map((l) => LEVELS_BY_LOWER.get(l.toLowerCase()));
          const bad = list.filter((_, i) => levels[i] === undefined);
          if (bad.length > 0) {
            ctx.addIssue({ code: 'custom', message: `must name ontology levels: ${ONTOLOGY_LEVELS.join(', ')} (got ${bad.map((b) => JSON.stringify(b)).join(', ')})` });
            return z.NEVER;
          }
          return levels as OntologyLevel[];
        })
        .optional(),
      // Session ids as given, one per value: an id may hold a comma.
      sessionIds: z.array(z.string().min(1, 'must not be empty')).optional(),
      from: time.optional(),
      to: time.optional(),
      min: number.optional(),
      max: number.optional(),
      limit: count.optional(),
      offset: count.optional(),
    })
    .superRefine((q, ctx) => {
      if (q.from !== undefined && q.to !== undefined && q.from > q.to) ctx.addIssue({ code: 'custom', path: ['from'], message: `is later than ${naming.name('to')}` });
      if (q.min !== undefined && q.max !== undefined && q.min > q.max) ctx.addIssue({ code: 'custom', path: ['min'], message: `is greater than ${naming.name('max')}` });
    });
}

/** The query the text gives; ResultQueryTextError naming every bad field. */
export function parseResultQueryText(text: ResultQueryText, naming: FieldNaming): ResultQuery {
  const parsed = schema(naming).safeParse(text);
  if (!parsed.success) {
    const messages = parsed.error.issues.map((issue) => {
      const field = issue.path[0] as ResultQueryField;
      // An element of a list (an empty session id) is named by its list.
      return `${naming.label(field)} ${issue.message}`;
    });
    throw new ResultQueryTextError(messages.join('; '));
  }
  const query: ResultQuery = {};
  for (const [key, value] of Object.entries(parsed.data)) if (value !== undefined) (query as Record<string, unknown>)[key] = value;
  return query;
}
