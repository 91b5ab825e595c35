/**
 * Session id per SPEC §1: `gen_ai.conversation.id`, else `session.id`, else `execution.id`, else configured
 * vendor keys, else the trace id. Span attributes are read before resource attributes. A span without any of these
 * keys joins the session of the other spans of its trace (usually only the root span carries the id).
 */
import type { SpanRecord } from './span.js';

export const STANDARD_SESSION_KEYS = ['gen_ai.conversation.id', 'session.id', 'execution.id'] as const;
/** Vendor keys read when no standard key is present; `IngestOptions.sessionKeys` replaces this list. */
export const DEFAULT_VENDOR_SESSION_KEYS = [
  'ai.telemetry.metadata.sessionId',
  'langfuse.session.id',
  'traceloop.association.properties.session_id',
  'session_id',
];

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() !== '' ? v : undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

interface ResourceIds {
  keys: readonly string[];
  standard: string | undefined;
  vendor: string | undefined;
}
const resourceIds = new WeakMap<object, ResourceIds>();

/** Session ids a resource names (resources are shared by every span of a request: computed once per object). */
function resourceSessionIds(resource: Record<string, unknown>, vendorKeys: readonly string[]): ResourceIds {
  const hit = resourceIds.get(resource);
  if (hit && hit.keys === vendorKeys) return hit;
  const first = (keys: readonly string[]) => {
    for (const k of keys) {
      const v = str(resource[k]);
      if (v) return v;
    }
    return undefined;
  };
  const ids = { keys: vendorKeys, standard: first(STANDARD_SESSION_KEYS), vendor: first(vendorKeys) };
  resourceIds.set(resource, ids);
  return ids;
}

/** The session id the span itself names, or undefined (the caller falls back to the trace's session, then the trace id). */
export function explicitSessionId(span: SpanRecord, vendorKeys: readonly string[] = DEFAULT_VENDOR_SESSION_KEYS): string | undefined {
  if (span.sourceSessionId) return span.sourceSessionId;
  const a = span.attributes;
  for (const k of STANDARD_SESSION_KEYS) {
    const v = str(a[k]);
    if (v) return v;
  }
  const res = resourceSessionIds(span.resource, vendorKeys);
  // Standard keys (span, then resource) outrank vendor keys (span, then resource).
  if (res.standard) return res.standard;
  for (const k of vendorKeys) {
    const v = str(a[k]);
    if (v) return v;
  }
  return res.vendor;
}

/** Group spans into sessions (batch mode: all spans are in memory). */
export function groupBySession(spans: Iterable<SpanRecord>, vendorKeys?: readonly string[]): Map<string, SpanRecord[]> {
  const all = [...spans];
  const traceSession = new Map<string, string>();
  const explicit = all.map((s) => explicitSessionId(s, vendorKeys));
  all.forEach((s, i) => {
    const id = explicit[i];
    if (id && !traceSession.has(s.traceId)) traceSession.set(s.traceId, id);
  });
  const groups = new Map<string, SpanRecord[]>();
  all.forEach((s, i) => {
    const id = explicit[i] ?? traceSession.get(s.traceId) ?? s.traceId;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = []));
    g.push(s);
  });
  return groups;
}
