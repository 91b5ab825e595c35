/**
 * The fresh held-out split of the labelled MCP set (test/data/mcp-labelled/fresh.jsonl): what build.mjs writes, each
 * item labelled as its class, each twin beside its good interaction, every call well-formed but where its class says
 * otherwise. It checks the data only; no model runs on it here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FRESH_SET_FILES, LABELLED_SET_FILES, parseLabelledSet, readLabelledSet, readJsonLines } from '@mce/provider-native';

const dir = fileURLToPath(new URL('../data/mcp-labelled/', import.meta.url));
const fresh = readLabelledSet(dir, FRESH_SET_FILES);
const catalogs = (fresh.catalogs as { servers: Record<string, Catalog> }).servers;
const { CLASS_LABELS, FAILURE_CLASSES } = (await import(new URL('../../scripts/mcp-labelled-set/labels.mjs', import.meta.url).href)) as {
  CLASS_LABELS: Record<string, Labels>;
  FAILURE_CLASSES: string[];
};

interface Labels { primitives: number | null; arguments: number | null; task: number | null }
interface Schema { type?: string; properties?: Record<string, Schema>; required?: string[]; items?: Schema; enum?: unknown[]; anyOf?: Schema[]; format?: string }
interface Catalog { tools: { name: string; inputSchema?: Schema }[] }
interface Call { server: string; kind: string; name: string; arguments?: Record<string, unknown>; result?: unknown; error?: string }
interface Item { id: string; split: string; class: string; twin: string | null; servers: string[]; turns: { request: string; calls: Call[]; labels: Labels }[] }

const items = fresh.items as Item[];
/** The calls a class's item makes where it is not one (the right one, or a pair's two). */
const CALLS_OF_CLASS: Record<string, number> = { missing_call: 0, needless_call: 2 };
const byId = new Map(items.map((i) => [i.id, i]));

const TYPE_OF: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  array: Array.isArray,
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
};

/** Whether a value fits a property's schema (type, enum, uri format, array items, nested objects). */
function fits(schema: Schema, value: unknown): boolean {
  if (schema.anyOf) return schema.anyOf.some((s) => fits(s, value));
  if (schema.enum && !schema.enum.includes(value)) return false;
  if (schema.type && !TYPE_OF[schema.type]!(value)) return false;
  if (schema.format === 'uri' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(String(value))) return false;
  if (schema.items && Array.isArray(value)) return value.every((v) => fits(schema.items!, v));
  if (schema.properties && TYPE_OF.object!(value)) return schemaBreaks(schema, value as Record<string, unknown>).length === 0;
  return true;
}

/** How arguments break an object schema: a required one left out, an undeclared one, a value that does not fit. */
function schemaBreaks(schema: Schema, args: Record<string, unknown>): string[] {
  const props = schema.properties ?? {};
  const missing = (schema.required ?? []).filter((name) => !(name in args)).map((name) => `missing ${name}`);
  const wrong = Object.entries(args).flatMap(([name, value]) =>
    !props[name] ? [`undeclared ${name}`] : fits(props[name], value) ? [] : [`mistyped ${name}`],
  );
  return [...missing, ...wrong];
}

function toolSchema(call: Call): Schema {
  const tool = catalogs[call.server]?.tools.find((t) => t.name === call.name);
  if (!tool) throw new Error(`${call.server} has no tool ${call.name}`);
  return tool.inputSchema ?? {};
}

describe('the fresh held-out split', () => {
  it('is exactly what the scenarios produce', async () => {
    const made = (await import(new URL('../../scripts/mcp-labelled-set/items.mjs', import.meta.url).href)) as {
      freshItems(): unknown[];
      jsonLines(items: unknown[]): string;
    };
    expect(made.jsonLines(made.freshItems())).toBe(readFileSync(new URL('../data/mcp-labelled/fresh.jsonl', import.meta.url), 'utf8'));
  });

  it('parses as the set, every item held out with split "fresh"; ids are unique', () => {
    const parsed = parseLabelledSet(fresh);
    expect(parsed.length).toBe(items.length);
    expect(parsed.every((i) => i.split === 'fresh' && i.holdout && i.turns.every((t) => t.split === 'fresh' && t.holdout))).toBe(true);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
  });

  it('at least 20 scenarios over at least 5 servers, a twin of every failure class for each', () => {
    const scenarios = items.filter((i) => i.class === 'good' && !i.id.includes('+'));
    expect(scenarios.length).toBeGreaterThanOrEqual(20);
    const servers = new Set(scenarios.map((i) => i.turns[0]!.calls[0]!.server));
    expect(servers.size).toBeGreaterThanOrEqual(5);
    for (const cls of FAILURE_CLASSES) expect(items.filter((i) => i.class === cls).length, cls).toBe(scenarios.length);
  });

  it("uses none of the servers of the development splits (LABELLED_SET_FILES)", () => {
    const development = LABELLED_SET_FILES.flatMap((file) => readJsonLines(`${dir}${file}`) as Item[]);
    const seen = new Set(development.flatMap((i) => i.servers));
    expect(items.flatMap((i) => i.servers).filter((s) => seen.has(s))).toEqual([]);
  });

  it("labels every item with its class's labels", () => {
    for (const i of items) for (const t of i.turns) expect(t.labels, i.id).toEqual(CLASS_LABELS[i.class]);
  });

  it('names for every degraded item a good twin with the same request and servers', () => {
    for (const i of items.filter((x) => x.class !== 'good')) {
      const good = byId.get(i.twin ?? '');
      expect(good?.class, i.id).toBe('good');
      expect(good!.turns[0]!.request, i.id).toBe(i.turns[0]!.request);
      expect(good!.servers, i.id).toEqual(i.servers);
    }
    expect(items.filter((i) => i.class === 'good').every((i) => i.twin === null)).toBe(true);
  });

  it('calls only tools of the servers offered; arguments break the schema in invalid_arguments twins only', () => {
    for (const i of items) {
      for (const call of i.turns.flatMap((t) => t.calls)) {
        expect(i.servers, i.id).toContain(call.server);
        const breaks = schemaBreaks(toolSchema(call), call.arguments ?? {});
        if (i.class === 'invalid_arguments') expect(breaks.length, `${i.id}: ${call.name}`).toBeGreaterThan(0);
        else expect(breaks, `${i.id}: ${call.name}`).toEqual([]);
      }
    }
  });

  it('a failed call has an error and no result; only invalid_arguments and ignored_error twins have one', () => {
    for (const i of items) {
      const calls = i.turns.flatMap((t) => t.calls);
      const failed = calls.filter((c) => c.error !== undefined);
      expect(failed.every((c) => c.result === undefined), i.id).toBe(true);
      expect(failed.length, i.id).toBe(['invalid_arguments', 'ignored_error'].includes(i.class) ? 1 : 0);
      expect(calls.length, i.id).toBe(CALLS_OF_CLASS[i.class] ?? (i.id.includes('+second-good') ? 2 : 1));
    }
  });
});
