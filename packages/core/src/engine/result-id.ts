import { hash } from 'node:crypto';

/**
 * Deterministic result ids: the same (runId, session, provider, metric, level, measured element) always gives the
 * same id, so re-running with a runId overwrites results in a store instead of duplicating them.
 *
 * The (runId, session, provider, name, level) part is hashed once per task with SHA-256 (64 bits kept); the measured
 * element id is mixed in with a fast 64-bit string hash, keeping per-result cost to a few hundred nanoseconds.
 * Formatted like a UUID (8-4-4-4-12 hex).
 */
export function resultIdPrefix(runId: string, sessionId: string, provider: string, name: string, level: string): string {
  return hash('sha256', `${runId}\u0000${sessionId}\u0000${provider}\u0000${name}\u0000${level}`, 'hex').slice(0, 16);
}

export function resultId(prefix: string, measuredId: string): string {
  const element = hash64(measuredId);
  return `${prefix.slice(0, 8)}-${prefix.slice(8, 12)}-${prefix.slice(12, 16)}-${element.slice(0, 4)}-${element.slice(4)}`;
}

/** 64-bit non-cryptographic string hash (cyrb53's mixing, both 32-bit lanes kept), as 16 hex digits. */
export function hash64(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return hex8(h2 >>> 0) + hex8(h1 >>> 0);
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, '0');
}
