/**
 * Session id per SPEC §1: `gen_ai.conversation.id`, else `session.id`, else `execution.id`, else configured
 * vendor keys, else the trace id. Span attributes are read before resource attributes. A span without any of these
 * keys joins the session of the other spans of its trace (usually only the root span carries the id): see the
 * grouping in read.ts.
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

/**
 * Where `explicitSessionId` read the span's session id from (`span attribute session.id`, `resource attribute …`, or
 * the key its rows were grouped under), in the same order. Only asked when the id is refused, for the warning.
 */
export function sessionIdSource(span: SpanRecord, vendorKeys: readonly string[] = DEFAULT_VENDOR_SESSION_KEYS): string | undefined {
  if (span.sourceSessionId) return 'the session key its rows are grouped under';
  const order: [readonly string[], Record<string, unknown>, string][] = [
    [STANDARD_SESSION_KEYS, span.attributes, 'span'],
    [STANDARD_SESSION_KEYS, span.resource, 'resource'],
    [vendorKeys, span.attributes, 'span'],
    [vendorKeys, span.resource, 'resource'],
  ];
  for (const [keys, attributes, on] of order) for (const k of keys) if (str(attributes[k])) return `${on} attribute ${k}`;
  return undefined;
}
