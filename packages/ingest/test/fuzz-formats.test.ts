/**
 * Fuzzing the readers of other tools' formats over the real files of fixtures/real-world: random truncation, deleted
 * keys and wrong-typed values, and the bytes of gzip and UTF-16 files cut or flipped. Each case gives sessions that fit
 * the schema or an IngestError naming its file, never any other exception (fuzz-support.ts).
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { fixture } from './helpers.js';
import { mutateJson, outcome } from './fuzz-support.js';

/** One file per reader (the Python console dump: its first 30 prints, to keep a case small). */
const FILES = [
  'any-agent_OPENAI_trace.json',
  'day23-lab_traces.jaeger.json',
  'langfuse-export_google-adk-2025-08-28.json',
  'langfuse-export_langgraph-python-2025-08-22.json',
  'phoenix_pxi_turn_trace.phoenix-spans.json',
  'openinference-mastra_weatherAgentSpans.readablespan.json',
  'envoy-aigw_chat-tools.span.json',
].map((f) => fixture(`real-world/${f}`));
const TEXTS = FILES.map((f) => readFileSync(f, 'utf8'));

/** The first `n` objects of Python's ConsoleSpanExporter output, back to back as it prints them. */
function consolePrints(n: number): string {
  const text = readFileSync(fixture('real-world/ms-agent-framework_traces.console.jsonl'), 'utf8');
  const starts = [...text.matchAll(/^\{$/gm)].map((m) => m.index);
  return text.slice(0, starts[n] ?? text.length);
}
const CONSOLE = consolePrints(30);
const consoleValues = () => CONSOLE.split(/\n(?=\{\n)/).map((v) => JSON.parse(v) as unknown);

const op = fc.record({ at: fc.nat(), del: fc.boolean(), wrong: fc.nat() });

describe('fuzzing the readers of other formats', () => {
  it('random truncation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(FILES.length), fc.double({ min: 0, max: 1, noNaN: true }), async (i, cut) => {
        const text = i === FILES.length ? CONSOLE : TEXTS[i]!;
        await outcome(text.slice(0, Math.floor(text.length * cut)), i === FILES.length ? 'jsonl' : 'json');
      }),
      { numRuns: 120, seed: 2020 },
    );
  });

  it('deleted keys and wrong types', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(FILES.length), fc.array(op, { minLength: 1, maxLength: 6 }), async (i, ops) => {
        if (i === FILES.length) {
          const values = consoleValues().map((v) => mutateJson(v, ops));
          await outcome(values.map((v) => JSON.stringify(v, null, 4)).join('\n'), 'jsonl');
          return;
        }
        await outcome(JSON.stringify(mutateJson(JSON.parse(TEXTS[i]!), ops), null, 2), 'json');
      }),
      { numRuns: 250, seed: 3131 },
    );
  });

  it('gzip and UTF-16 bytes cut short or flipped', async () => {
    const utf16 = readFileSync(fixture('real-world/day23-lab_single_trace.jaeger-utf16.json'));
    const gzipped = gzipSync(Buffer.from(TEXTS[4]!));
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true }), fc.array(fc.nat(), { maxLength: 4 }), async (gz, cut, flips) => {
        const bytes = Buffer.from(gz ? gzipped : utf16);
        for (const f of flips) bytes[f % bytes.length] = (bytes[f % bytes.length]! + 1 + (f % 255)) & 0xff;
        await outcome(bytes.subarray(0, Math.max(1, Math.floor(bytes.length * cut))), gz ? 'json.gz' : 'json');
      }),
      { numRuns: 120, seed: 77 },
    );
  });
});
