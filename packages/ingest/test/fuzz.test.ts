/**
 * Fuzzing over the fixtures: random truncation, deleted keys and wrong-typed values. The reader must either return
 * sessions that fit the ontology schema (and hold no field it does not define) or reject with an IngestError naming the file — never throw anything else.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { dataFile, fixture } from './helpers.js';
import { mutateJson, outcome, slots, WRONG } from './fuzz-support.js';


const FILES = [
  ...['braintrust', 'litellm', 'openinference', 'openllmetry', 'openllmetry-legacy', 'raw', 'raw-folk', 'vercel'].map((f) => fixture(`otlp-dialects/${f}.json`)),
  fixture('clickhouse-otel-traces/langgraph_single_agent_tool.json'),
  fixture('clickhouse-otel-traces/langgraph_supervisor_research.json'),
  dataFile('multi-agent/genai-legacy.jsonl'),
];
const TEXTS = FILES.map((f) => readFileSync(f, 'utf8'));

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
