/** The web view's query parameters, checked: a bad one is a 400 page naming it, never a silently empty list. */
import type { Context } from 'hono';
import { ONTOLOGY_LEVELS, type OntologyLevel } from '@mce/core';
import { parseTimeText } from '@mce/store';

export class WebBadRequest extends Error {}

/** A parameter's value, undefined when absent or left empty in the form. */
export function param(c: Context, name: string): string | undefined {
  const v = c.req.query(name)?.trim();
  return v === undefined || v === '' ? undefined : v;
}

export function timeParam(c: Context, name: string): number | undefined {
  const v = param(c, name);
  if (v === undefined) return undefined;
  try {
    return parseTimeText(v);
  } catch {
    throw new WebBadRequest(`${name}: not a time: "${v}" (ISO 8601, e.g. 2026-11-30T08:00:00Z, or epoch milliseconds)`);
  }
}

export function numberParam(c: Context, name: string): number | undefined {
  const v = param(c, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new WebBadRequest(`${name}: not a number: "${v}"`);
  return n;
}

export function intParam(c: Context, name: string, fallback: number, max: number): number {
  const v = param(c, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) > max) throw new WebBadRequest(`${name}: a whole number from 0 to ${max} (got "${v}")`);
  return Number(v);
}

export function levelParam(c: Context, name: string): OntologyLevel {
  const v = param(c, name) ?? 'Session';
  if (!(ONTOLOGY_LEVELS as readonly string[]).includes(v)) throw new WebBadRequest(`${name}: one of ${ONTOLOGY_LEVELS.join(', ')} (got "${v}")`);
  return v as OntologyLevel;
}
