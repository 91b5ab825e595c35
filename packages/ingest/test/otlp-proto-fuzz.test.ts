/**
 * Fuzzing the protobuf reader: random bytes, and real protobuf (a dialect fixture's twin) with bytes flipped, cut or
 * inserted. Decoding either gives an object or throws OtlpDecodeError; reading a file either gives sessions or throws
 * an IngestError naming it — never anything else.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { IngestError, readSessions, WarningSink } from '../src/index.js';
import { otlpSpans } from '../src/formats/otlp.js';
import { decodeTraceRequest, encodeTraceRequest, OtlpDecodeError } from '../src/otlp-protobuf.js';
import { fixture } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mce-proto-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TWINS = ['openinference', 'openllmetry', 'vercel'].map((f) => encodeTraceRequest(JSON.parse(readFileSync(fixture(`otlp-dialects/${f}.json`), 'utf8')) as Record<string, unknown>));

/** A twin with one of: bytes overwritten, a cut, bytes inserted. */
const mangled = fc
  .tuple(fc.constantFrom(...TWINS), fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.constantFrom('overwrite', 'cut', 'insert'))
  .map(([twin, at, bytes, how]) => {
    const i = at % twin.length;
    if (how === 'cut') return twin.subarray(0, i);
    if (how === 'insert') return Buffer.concat([twin.subarray(0, i), bytes, twin.subarray(i)]);
    const out = Buffer.from(twin);
    out.set(bytes.subarray(0, out.length - i), i);
    return out;
  });

const anyBytes = fc.oneof(fc.uint8Array({ maxLength: 512 }), mangled);

function decodeOutcome(bytes: Uint8Array): void {
  try {
    const request = decodeTraceRequest(bytes);
    for (const span of otlpSpans(request, new WarningSink(), { file: 'fuzz' })) expect(typeof span.spanId).toBe('string');
  } catch (err) {
    if (!(err instanceof OtlpDecodeError)) throw err;
  }
}

let n = 0;
async function readOutcome(bytes: Uint8Array): Promise<void> {
  const p = join(dir, `case${n++}.pb`);
  writeFileSync(p, bytes);
  try {
    await readSessions(p, { format: 'otlp-proto' });
  } catch (err) {
    if (!(err instanceof IngestError)) throw err;
    expect(err.file).toBe(p);
  }
}

describe('OTLP protobuf fuzzing', () => {
  it('decoding throws only OtlpDecodeError', () => {
    fc.assert(fc.property(anyBytes, decodeOutcome), { numRuns: 2000 });
  });

  it('reading a file throws only an IngestError naming it', async () => {
    await fc.assert(fc.asyncProperty(anyBytes, readOutcome), { numRuns: 300 });
  });
});
