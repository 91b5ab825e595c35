/**
 * What the fuzz tests share: a case is read from a file of its own, and must either give sessions that fit the ontology
 * schema (with no field it does not define) or be refused with an IngestError naming that file; anything else thrown
 * fails the property.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { SessionSchema, UnknownFields } from '@mce/core';
import { IngestError, readSessions } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'mce-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Reads `content` (text, or bytes) as a file ending in `ext`; see the file's comment for what must come of it. */
export async function outcome(content: string | Buffer, ext: string): Promise<void> {
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
export function slots(root: unknown): [Record<string, unknown> | unknown[], string | number][] {
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

export const WRONG: unknown[] = [null, 0, -1, 1e300, '', 'x', true, [], {}, [1, 'a'], { stringValue: 5 }, { low: 'a', high: null }, '1e999', 'ZZZZ'];

export function mutateJson(doc: unknown, ops: { at: number; del: boolean; wrong: number }[]): unknown {
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

