/**
 * The labelled MCP interactions (test/data/mcp-labelled.json) used to calibrate and evaluate the local System One
 * model: servers by name, items of one or more turns, each turn labelled good/bad per question.
 */
import { z } from 'zod';
import { MCPServerSchema, type MCPServer } from '@mce/core';
import type { MCPConversation, MCPInteraction } from '../interaction.js';
import { turnInteraction } from '../interaction.js';
import type { SystemOneQuestion } from './types.js';

const Verdict = z.enum(['good', 'bad']);
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
  labels: z.object({ primitives: Verdict, arguments: Verdict, task: Verdict.optional() }),
});
export const LabelledSetSchema = z.object({
  description: z.string().optional(),
  servers: z.record(z.string(), MCPServerSchema),
  items: z.array(
    z.object({
      id: z.string(),
      category: z.string(),
      holdout: z.boolean().default(false),
      servers: z.array(z.string()),
      turns: z.array(TurnSchema).min(1),
    }),
  ),
});

export interface LabelledTurn {
  itemId: string;
  turn: number;
  category: string;
  holdout: boolean;
  interaction: MCPInteraction;
  /** 1 = good, 0 = bad. */
  labels: Partial<Record<SystemOneQuestion, 0 | 1>>;
}

export interface LabelledItem {
  id: string;
  category: string;
  holdout: boolean;
  conversation: MCPConversation;
  turns: LabelledTurn[];
}

/** Parse the labelled set; every turn becomes an interaction with the earlier turns as context. */
export function parseLabelledSet(data: unknown): LabelledItem[] {
  const set = LabelledSetSchema.parse(data);
  return set.items.map((item) => {
    const servers: MCPServer[] = item.servers.map((name) => {
      const s = set.servers[name];
      if (!s) throw new Error(`labelled item ${item.id}: unknown server ${name}`);
      return s as MCPServer;
    });
    const conversation: MCPConversation = {
      servers,
      turns: item.turns.map((t) => ({ request: t.request, output: t.output, calls: t.calls })),
    };
    const turns = item.turns.map((t, k) => {
      const labels: Partial<Record<SystemOneQuestion, 0 | 1>> = {
        primitives: t.labels.primitives === 'good' ? 1 : 0,
        arguments: t.labels.arguments === 'good' ? 1 : 0,
      };
      if (t.labels.task) labels.task = t.labels.task === 'good' ? 1 : 0;
      return {
        itemId: item.id,
        turn: k,
        category: item.category,
        holdout: item.holdout,
        interaction: turnInteraction(conversation, k),
        labels,
      };
    });
    return { id: item.id, category: item.category, holdout: item.holdout, conversation, turns };
  });
}

export function labelledTurns(data: unknown): LabelledTurn[] {
  return parseLabelledSet(data).flatMap((i) => i.turns);
}
