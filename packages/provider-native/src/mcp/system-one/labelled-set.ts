/**
 * The labelled MCP interactions (test/data/mcp-labelled/) used to calibrate and evaluate the local System One model:
 * tool catalogs by server name (catalogs.json) and JSON Lines of interactions, each turn labelled per question on the
 * four levels (0 no … 3 yes; null = does not apply), each degraded interaction naming its good twin.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { MCPServerSchema, type MCPServer } from '@mce/core';
import type { MCPConversation, MCPInteraction } from '../interaction.js';
import { turnInteraction } from '../interaction.js';
import { SYSTEM_ONE_QUESTIONS, type SystemOneQuestion } from './types.js';

const Level = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]).nullable().optional();
const CallSchema = z.object({
  server: z.string().optional(),
  kind: z.enum(['tool', 'resource', 'prompt']),
  name: z.string(),
  uri: z.string().optional(),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.union([z.string(), z.literal(true)]).optional(),
});
const TurnSchema = z.object({
  request: z.string(),
  output: z.string(),
  calls: z.array(CallSchema),
  labels: z.object({ primitives: Level, arguments: Level, task: Level }),
});
/**
 * `train` (with the legacy items) is what calibration may fit; `heldout` and `fresh` are held out from it. `fresh` was
 * written later, blind to the model, over servers the other splits do not use (test/data/mcp-labelled/README.md).
 */
export const LABELLED_SPLITS = ['train', 'heldout', 'fresh'] as const;
export type LabelledSplit = (typeof LABELLED_SPLITS)[number];

export const LabelledItemSchema = z.object({
  id: z.string().min(1),
  split: z.enum(LABELLED_SPLITS),
  /** `good`, a failure class (wrong_tool …) or `legacy:<category>`. */
  class: z.string().min(1),
  /** A degraded interaction's good counterpart. */
  twin: z.string().nullable().default(null),
  servers: z.array(z.string()).min(1),
  turns: z.array(TurnSchema).min(1),
});
export const CatalogsSchema = z.object({
  servers: z.record(z.string(), MCPServerSchema),
  /** Servers written for the earlier hand-made set (not public servers). */
  handMade: z.record(z.string(), MCPServerSchema).default({}),
});

export interface LabelledSetData {
  catalogs: unknown;
  items: unknown[];
}

export interface LabelledTurn {
  itemId: string;
  turn: number;
  category: string;
  split: LabelledSplit;
  /** Held out from calibration (the `heldout` and `fresh` splits). */
  holdout: boolean;
  interaction: MCPInteraction;
  /** The level / 3 per question (0, 1/3, 2/3, 1); absent when the question does not apply. */
  labels: Partial<Record<SystemOneQuestion, number>>;
}

export interface LabelledItem {
  id: string;
  category: string;
  split: LabelledSplit;
  /** Held out from calibration (the `heldout` and `fresh` splits). */
  holdout: boolean;
  twin: string | null;
  conversation: MCPConversation;
  turns: LabelledTurn[];
}

function levels(labels: z.infer<typeof TurnSchema>['labels']): Partial<Record<SystemOneQuestion, number>> {
  const out: Partial<Record<SystemOneQuestion, number>> = {};
  for (const q of SYSTEM_ONE_QUESTIONS) {
    const level = labels[q];
    if (level !== null && level !== undefined) out[q] = level / 3;
  }
  return out;
}

/** Parse the set; every turn becomes an interaction with the earlier turns as context. */
export function parseLabelledSet(data: LabelledSetData): LabelledItem[] {
  const catalogs = CatalogsSchema.parse(data.catalogs);
  const known = { ...catalogs.handMade, ...catalogs.servers };
  const items = data.items.map((raw, k) => {
    const parsed = LabelledItemSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`labelled item ${k + 1}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return parsed.data;
  });
  const ids = new Set(items.map((i) => i.id));
  return items.map((item) => {
    if (item.twin !== null && !ids.has(item.twin)) throw new Error(`labelled item ${item.id}: twin ${item.twin} is not in the set`);
    const servers: MCPServer[] = item.servers.map((name) => {
      const s = known[name];
      if (!s) throw new Error(`labelled item ${item.id}: unknown server ${name}`);
      return s as MCPServer;
    });
    const conversation: MCPConversation = {
      servers,
      turns: item.turns.map((t) => ({ request: t.request, output: t.output, calls: t.calls })),
    };
    const { split } = item;
    const holdout = split !== 'train';
    const turns = item.turns.map((t, k) => ({
      itemId: item.id,
      turn: k,
      category: item.class,
      split,
      holdout,
      interaction: turnInteraction(conversation, k),
      labels: levels(t.labels),
    }));
    return { id: item.id, category: item.class, split, holdout, twin: item.twin, conversation, turns };
  });
}

/** The files of the set, in this order (calibration folds are taken by position, so the order is fixed). */
export const LABELLED_SET_FILES = ['train.jsonl', 'legacy.jsonl', 'heldout.jsonl'] as const;
/**
 * The fresh held-out split. Not among LABELLED_SET_FILES, so that nothing reading the set for development (calibration,
 * the held-out checks, the benches) measures on it; read it on purpose: `readLabelledSet(dir, FRESH_SET_FILES)`.
 */
export const FRESH_SET_FILES = ['fresh.jsonl'] as const;

/** JSON Lines → objects; a line that is not JSON fails naming the file and line. */
export function readJsonLines(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line, k) => {
      if (!line.trim()) return [];
      try {
        return [JSON.parse(line) as unknown];
      } catch (error) {
        throw new Error(`${path}:${k + 1}: not JSON (${(error as Error).message})`, { cause: error });
      }
    });
}

/** The set as stored in a directory: catalogs.json and the JSON Lines files (by default LABELLED_SET_FILES). */
export function readLabelledSet(dir: string, files: readonly string[] = LABELLED_SET_FILES): LabelledSetData {
  return {
    catalogs: JSON.parse(readFileSync(join(dir, 'catalogs.json'), 'utf8')) as unknown,
    items: files.flatMap((file) => readJsonLines(join(dir, file))),
  };
}

export function labelledTurns(data: LabelledSetData): LabelledTurn[] {
  return parseLabelledSet(data).flatMap((i) => i.turns);
}
