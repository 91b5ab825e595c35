/**
 * The `sdk_metrics:` entries of mce_config.yaml, checked with zod where they enter: a judged metric (criteria or
 * evaluation steps, an optional 1–5 rubric, the inputs shown to the judge) or a deterministic one (an expression).
 */
import { ONTOLOGY_LEVELS } from '@mce/core';
import { z } from 'zod';

export const JUDGED_INPUTS = ['user_input', 'final_response', 'messages', 'tool_arguments', 'tool_results'] as const;
export type JudgedInput = (typeof JUDGED_INPUTS)[number];

const NAME = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'must be letters, digits and _, starting with a letter (it is written sdk:<name>)');

const unique = <T>(list: readonly T[]) => new Set(list).size === list.length;

const common = {
  name: NAME,
  description: z.string().min(1).optional(),
  levels: z.array(z.enum(ONTOLOGY_LEVELS)).min(1).refine(unique, 'lists a level twice'),
};

const JudgedSchema = z
  .strictObject({
    ...common,
    kind: z.literal('judged'),
    criteria: z.string().trim().min(1).optional(),
    evaluation_steps: z.array(z.string().trim().min(1)).min(1).optional(),
    /** Anchors of the 1–5 scale; YAML writes the keys as numbers, JSON as strings. */
    rubric: z.partialRecord(z.enum(['1', '2', '3', '4', '5']), z.string().trim().min(1)).optional(),
    inputs: z.array(z.enum(JUDGED_INPUTS)).min(1).refine(unique, 'lists an input twice'),
    threshold: z.number().min(0).max(1).optional(),
    model: z.string().trim().min(1).optional(),
  })
  .refine((m) => m.criteria !== undefined || m.evaluation_steps !== undefined, {
    message: 'give criteria or evaluation_steps: what the judge scores',
    path: ['criteria'],
  });

const DeterministicSchema = z.strictObject({
  ...common,
  kind: z.literal('deterministic'),
  expression: z.string().trim().min(1),
  unit: z.string().min(1).optional(),
  threshold: z.number().optional(),
});

export const SdkMetricSchema = z.discriminatedUnion('kind', [JudgedSchema, DeterministicSchema], {
  error: 'kind must be judged or deterministic',
});

export type SdkMetricConfig = z.infer<typeof SdkMetricSchema>;
export type JudgedMetricConfig = Extract<SdkMetricConfig, { kind: 'judged' }>;
export type DeterministicMetricConfig = Extract<SdkMetricConfig, { kind: 'deterministic' }>;
