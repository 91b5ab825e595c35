/**
 * An OTLP attribute nested 3,000 levels deep (a 150 KB file) skips its span with a warning naming the file, line and
 * column; the rest of the file and every later file are read. It used to abort the command with "Maximum call stack
 * size exceeded" and no file named (JSON), or drop the rest of that file and the later ones (JSON Lines).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../ingest/src/json-depth.js';
import { decodeAnyValue } from '../../../ingest/src/values.js';
import { runCli, tempWorkspace } from '../cli/run-cli.js';

const levels = (n: number) => `${'{"kvlistValue":{"values":[{"key":"k","value":'.repeat(n)}{"stringValue":"leaf"}${'}]}}'.repeat(n)}`;
const span = (id: string, session: string, extra = '') =>
  `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"${id}","name":"chat gpt-4o","startTimeUnixNano":"1767261600000000000","endTimeUnixNano":"1767261601000000000",` +
  `"attributes":[{"key":"session.id","value":{"stringValue":"${session}"}},{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}${extra}]}`;
const doc = (...spans: string[]) => `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[${spans.join(',')}]}]}]}`;

describe('deeply nested attribute values', () => {
  it('decodes a value nested MAX_JSON_DEPTH levels, and refuses one level more', () => {
    let value: unknown = JSON.parse(levels(MAX_JSON_DEPTH - 1));
    expect(() => decodeAnyValue(value)).not.toThrow();
    value = JSON.parse(levels(MAX_JSON_DEPTH));
    expect(() => decodeAnyValue(value)).toThrow(`attribute value nested deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('skips the span holding one (naming file, line and column) and reads the rest, in JSON and JSON Lines', async () => {
    const ws = tempWorkspace();
    const deep = `,{"key":"deep","value":${levels(3000)}}`;
    writeFileSync(join(ws.dir, 'deep.json'), doc(span('b7ad6b7169203331', 's-deep', deep), span('b7ad6b7169203332', 's-deep')));
    writeFileSync(join(ws.dir, 'deep.jsonl'), `${doc(span('b7ad6b7169203333', 's-lines', deep))}\n${doc(span('b7ad6b7169203334', 's-lines'))}\n`);
    writeFileSync(join(ws.dir, 'after.jsonl'), `${doc(span('b7ad6b7169203335', 's-after'))}\n`);
    const at = (name: string) => join(ws.dir, name);
    const run = await runCli(['ingest', at('deep.json'), at('deep.jsonl'), at('after.jsonl'), '--json'], ws);
    expect([run.code, run.stderr.split('\n').filter((l) => !l.startsWith('{'))]).toEqual([0, ['']]);
    const summary = run.json<{ sessionIds: string[]; warnings: number }>();
    expect(summary.sessionIds.sort()).toEqual(['s-after', 's-deep', 's-lines']);
    // The warnings, as logged on stderr (one JSON line each).
    const warnings = run.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { file: string; line?: number; column?: number; message: string });
    expect(warnings.map((w) => [w.file, w.line, w.column, w.message])).toEqual([
      [at('deep.json'), 1, 73, `skipped span b7ad6b7169203331: attribute value nested deeper than ${MAX_JSON_DEPTH} levels`],
      [at('deep.jsonl'), 1, 73, `skipped span b7ad6b7169203333: attribute value nested deeper than ${MAX_JSON_DEPTH} levels`],
    ]);
  });
});
