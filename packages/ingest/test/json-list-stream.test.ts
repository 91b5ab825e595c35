/**
 * A file that is one JSON list, read item by item (json-array-stream.ts): the items are JSON.parse's whatever the
 * chunks the text arrives in (a string with quotes, backslashes, brackets and commas cut anywhere); a fault is named at
 * its line and column in the whole file; a list of ClickHouse rows read so gives the sessions a whole parse gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSessions } from '../src/index.js';
import { jsonListItems } from '../src/json-array-stream.js';
import { JsonTextError } from '../src/json-values.js';
import { catchError, fixture, tempFiles } from './helpers.js';

const write = tempFiles('mce-list-stream');

async function items(chunks: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const { value, index } of jsonListItems(chunks)) {
    expect(index).toBe(out.length);
    out.push(value);
  }
  return out;
}

/** `text` cut at the given offsets. */
const cut = (text: string, at: number[]): string[] => {
  const points = [...new Set(at.map((a) => a % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
};

describe('items of a JSON list, chunk by chunk', () => {
  it('any list of JSON values, cut anywhere, gives JSON.parse’s items', async () => {
    const tricky = fc.stringMatching(/^[a-z"\\[\]{},\n ]{0,12}$/);
    const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(tricky, fc.oneof(tricky, fc.integer())), fc.array(tricky));
    await fc.assert(
      fc.asyncProperty(fc.array(value, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), async (list, at, pretty) => {
        const text = pretty ? JSON.stringify(list, null, 2) : JSON.stringify(list);
        expect(await items(cut(text, at))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300, seed: 5151 },
    );
  });

  it('a list of one item per line (as rows are exported), cut anywhere: the items and faults of a scan of every character', async () => {
    /** The items, or the fault's place and reason. */
    const outcome = async (chunks: string[]) => {
      try {
        return { items: await items(chunks) };
      } catch (err) {
        return { at: (err as JsonTextError).at, reason: (err as JsonTextError).reason };
      }
    };
    const tricky = fc.stringMatching(/^[a-z"\\[\]{},: ]{0,12}$/);
    const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(tricky, fc.oneof(tricky, fc.integer())), fc.array(tricky));
    await fc.assert(
      fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), fc.nat(), fc.boolean(), async (list, at, bad, broken) => {
        const rows = list.map((v) => JSON.stringify(v));
        // Broken: one row's last character doubled (`}}`, `]]`, `""`, `11`…).
        const k = bad % rows.length;
        if (broken) rows[k] = `${rows[k]!}${rows[k]!.at(-1)!}`;
        const text = `[\n${rows.join(',\n')}\n]\n`;
        // One character a chunk: no line is ever whole in a chunk, so every item is found by the scanner.
        const scanned = await outcome([...text]);
        expect(await outcome(cut(text, at))).toEqual(scanned);
        if (!broken) expect(scanned).toEqual({ items: list.map((v) => JSON.parse(JSON.stringify(v)) as unknown) });
      }),
      { numRuns: 300, seed: 777 },
    );
    // Items of one line, then a line of two (from there the scanner), then one over two lines.
    expect(await items(['[{"a": 1},\n{"b": 2}, {"c": 3},\n', '{"d": [4,\n5]}\n]'])).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }, { d: [4, 5] }]);
  });

  it('a fault is named at its line and column whatever the chunks (line breaks counted once, across chunks)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 }), fc.nat({ max: 3 }), async (list, at, blank) => {
        const text = `${JSON.stringify(list, null, 2)}${'\n'.repeat(blank)}\n  x`;
        const lines = text.split('\n');
        const expected = { line: lines.length, column: lines.at(-1)!.indexOf('x') + 1 };
        let where: unknown;
        try {
          await items(cut(text, at));
        } catch (err) {
          where = (err as JsonTextError).at;
        }
        expect(where).toEqual(expected);
      }),
      { numRuns: 200, seed: 2026 },
    );
  });

  it('a backslash ending one chunk escapes the quote starting the next', async () => {
    expect(await items(['[{"a": "x\\', '"y"}, 2]'])).toEqual([{ a: 'x"y' }, 2]);
    expect(await items(['[{"a": "x\\\\', '"}, 2]'])).toEqual([{ a: 'x\\' }, 2]);
  });

  it('faults are named at their line and column in the whole text', async () => {
    const fault = async (chunks: string[]) => {
      try {
        await items(chunks);
      } catch (err) {
        expect(err).toBeInstanceOf(JsonTextError);
        return [(err as JsonTextError).at, (err as JsonTextError).reason.split(',')[0]];
      }
      throw new Error('expected a fault');
    };
    expect(await fault(['[\n  {"a": 1},\n  {"a": tru', 'e, "b": x}\n]'])).toEqual([{ line: 3, column: 20 }, "Unexpected token 'x'"]);
    expect(await fault(['[1, 2,\n]'])).toEqual([{ line: 2, column: 1 }, 'Unexpected token in the list (an empty item)']);
    expect(await fault(['[1, 2]\n  {}'])).toEqual([{ line: 2, column: 3 }, 'Unexpected non-whitespace character after JSON']);
    expect(await fault(['[1, {"a":', ' 2}'])).toEqual([{ line: 1, column: 13 }, 'Unexpected end of JSON input']);
  });
});

describe('a list of ClickHouse rows, streamed', () => {
  it('gives the sessions of a whole parse (the format forced: read whole)', async () => {
    const path = fixture('clickhouse-otel-traces/langgraph_llamaindex_linear_5_agents.json');
    const streamed = await readSessions(path);
    const whole = await readSessions(path, { format: 'clickhouse' });
    expect(streamed.sessions).toEqual(whole.sessions);
    expect(streamed.sessions[0]!.llmCalls.length).toBeGreaterThan(0);
  });

  it('a row that is not valid JSON: the file is refused at the row’s line and column, nothing of it kept', async () => {
    const row = (id: string) => JSON.stringify({ TraceId: '11111111111111111111111111111111', SpanId: id, SpanName: 'execute_tool t', Timestamp: '2025-06-20 21:37:08.604225', Duration: 1000, SpanAttributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 't' } });
    const p = write(`[\n${row('a000000000000001')},\n${row('a000000000000002').replace('"Duration":1000', '"Duration":10x')}\n]`);
    const e = await catchError(readSessions(p));
    expect([e.line, e.column]).toEqual([3, row('a000000000000002').indexOf('"Duration":1000') + 14]);
    expect(e.message).toMatch(/: invalid JSON: .* \(line 3, column \d+\)$/);
    const r = await readSessions([p], { skipUnreadable: true });
    expect([r.sessions, r.skipped.map((s) => s.file)]).toEqual([[], [p]]);
  });
});
