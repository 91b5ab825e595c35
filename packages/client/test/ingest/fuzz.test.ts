/**
 * Fuzzing over the fixtures: random truncation, deleted keys and wrong-typed values. The reader must either return
 * sessions that fit the ontology schema (and hold no field it does not define) or reject with an IngestError naming the file — never throw anything else.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionSchema, UnknownFields } from '@mce/core';
import { IngestError, readSessions } from '../../src/ingest/index.js';
import { dataFile, fixture } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mce-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILES = [
  ...['braintrust', 'litellm', 'openinference', 'openllmetry', 'openllmetry-legacy', 'raw', 'raw-folk', 'vercel'].map((f) => fixture(`otlp-dialects/${f}.json`)),
  fixture('clickhouse-otel-traces/langgraph_single_agent_tool.json'),
  fixture('clickhouse-otel-traces/langgraph_supervisor_research.json'),
  dataFile('multi-agent/genai-legacy.jsonl'),
];
const TEXTS = FILES.map((f) => readFileSync(f, 'utf8'));

let n = 0;
async function outcome(content: string, ext: string): Promise<void> {
  const p = join(dir, `case${n++}.${ext}`);
  writeFileSync(p, content);
  try {
    const { sessions } = await readSessions(p);
    for (const s of sessions) {
      const check = SessionSchema.safeParse(s);
      if (!check.success) throw new Error(`session ${s.id} does not fit the schema: ${check.error.message}`);
      // Nor a field the format does not define: an exported session must read back without a warning.
      const extra = new UnknownFields().check(s).notes();
      if (extra.length > 0) throw new Error(`session ${s.id} has fields the format does not define: ${extra.map((x) => x.message).join('; ')}`);
    }
  } catch (err) {
    if (!(err instanceof IngestError)) throw err;
    expect(err.file).toBe(p);
  } finally {
    rmSync(p, { force: true });
  }
}

/** Every [container, key] pair of a JSON value (objects and arrays), in document order. */
function slots(root: unknown): [Record<string, unknown> | unknown[], string | number][] {
  const out: [Record<string, unknown> | unknown[], string | number][] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        out.push([v, i]);
        walk(x);
      });
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        out.push([v as Record<string, unknown>, k]);
        walk(x);
      }
    }
  };
  walk(root);
  return out;
}

const WRONG: unknown[] = [null, 0, -1, 1e300, '', 'x', true, [], {}, [1, 'a'], { stringValue: 5 }, { low: 'a', high: null }, '1e999', 'ZZZZ'];

function mutateJson(doc: unknown, ops: { at: number; del: boolean; wrong: number }[]): unknown {
  for (const op of ops) {
    const all = slots(doc);
    if (all.length === 0) break;
    const [container, key] = all[op.at % all.length]!;
    if (op.del) {
      if (Array.isArray(container)) container.splice(key as number, 1);
      else delete container[key as string];
    } else {
      (container as Record<string | number, unknown>)[key] = structuredClone(WRONG[op.wrong % WRONG.length]);
    }
  }
  return doc;
}

const isJsonl = (i: number) => FILES[i]!.endsWith('.jsonl');

describe('fuzzing the readers', () => {
  it('random truncation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(FILES.length - 1), fc.double({ min: 0, max: 1, noNaN: true }), async (i, cut) => {
        const text = TEXTS[i]!;
        await outcome(text.slice(0, Math.floor(text.length * cut)), isJsonl(i) ? 'jsonl' : 'json');
      }),
      { numRuns: 120, seed: 4242 },
    );
  });

  it('deleted keys and wrong types', async () => {
    const op = fc.record({ at: fc.nat(), del: fc.boolean(), wrong: fc.nat() });
    await fc.assert(
      fc.asyncProperty(fc.nat(FILES.length - 1), fc.array(op, { minLength: 1, maxLength: 6 }), async (i, ops) => {
        if (isJsonl(i)) {
          const lines = TEXTS[i]!.trim().split('\n').map((l) => mutateJson(JSON.parse(l), ops));
          await outcome(lines.map((l) => JSON.stringify(l)).join('\n'), 'jsonl');
        } else {
          await outcome(JSON.stringify(mutateJson(JSON.parse(TEXTS[i]!), ops)), 'json');
        }
      }),
      { numRuns: 250, seed: 1717 },
    );
  });

  it('wrong types everywhere in one span at once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(FILES.length - 1), fc.nat(), async (i, w) => {
        if (isJsonl(i)) return;
        const doc = JSON.parse(TEXTS[i]!) as unknown;
        for (const [container, key] of slots(doc)) {
          if (typeof key === 'string' && /^(traceId|spanId|parentSpanId|name|kind|startTimeUnixNano|endTimeUnixNano|status|events|attributes|SpanId|TraceId|Timestamp|Duration|StatusCode|SpanAttributes)$/.test(key) && (w + key.length) % 3 === 0) {
            (container as Record<string, unknown>)[key] = structuredClone(WRONG[(w + key.length) % WRONG.length]);
          }
        }
        await outcome(JSON.stringify(doc), 'json');
      }),
      { numRuns: 60, seed: 99 },
    );
  });
});
