/**
 * Opik's heuristic metrics (no LLM): IsJson, Contains, RegexMatch, ExactMatch on an element's output, scored by the
 * opik package's own classes. They need no judge configuration and cost nothing. The substring, pattern and
 * reference they compare against are the metric's options (ExactMatch's reference also the element's or session's
 * `reference` attribute); a missing one fails the computation with an error naming the option.
 */
import type { OntologyLevel } from '@mce/core';
import { outputOf, referenceOf, type JudgedElement } from '@mce/provider-native';
import { opikClass } from './judge-model.js';

const OUTPUT_LEVELS: readonly OntologyLevel[] = ['Session', 'MASCall', 'AgentCall', 'LLMCall'];

type Options = Readonly<Record<string, unknown>>;
type HeuristicMetric = { score(input: Record<string, unknown>): Promise<{ value: number; reason?: string }> };

/** A metric option that is missing or of the wrong type: the user's configuration is wrong, not the data. */
export class MetricOptionError extends Error {
  readonly kind = 'bad-input';
  constructor(message: string) {
    super(message);
    this.name = 'MetricOptionError';
  }
}

export interface HeuristicDefinition {
  name: 'IsJson' | 'Contains' | 'RegexMatch' | 'ExactMatch';
  description: string;
  levels: readonly OntologyLevel[];
  requirements: readonly string[];
  options: readonly string[];
  /** The library's `score()` input for the element; throws when the output or a required option is missing. */
  input(id: string, target: JudgedElement, options: Options): Record<string, unknown>;
  /** The library's metric (its name as Opik's default, not tracked to an Opik server). */
  create(options: Options): HeuristicMetric;
}

function requiredString(id: string, options: Options, option: string, what: string): string {
  const value = options[option];
  if (typeof value === 'string' && value !== '') return value;
  if (value === undefined) throw new MetricOptionError(`${id}: set the metric's "${option}" option (${what})`);
  throw new MetricOptionError(`${id}: option "${option}" must be a non-empty string (${what}), got ${JSON.stringify(value)}`);
}

function optionalString(id: string, options: Options, option: string): string | undefined {
  const value = options[option];
  if (value === undefined || typeof value === 'string') return value;
  throw new MetricOptionError(`${id}: option "${option}" must be a string, got ${JSON.stringify(value)}`);
}

function optionalBoolean(id: string, options: Options, option: string): boolean | undefined {
  const value = options[option];
  if (value === undefined || typeof value === 'boolean') return value;
  throw new MetricOptionError(`${id}: option "${option}" must be true or false, got ${JSON.stringify(value)}`);
}

/** Names the option when the library's check of it fails (an invalid regular expression). */
function checkedPattern(id: string, pattern: string, flags: string | undefined): void {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new MetricOptionError(`${id}: option "pattern"/"flags" is not a valid regular expression: ${(error as Error).message}`);
  }
}

const construct = (className: string, ...args: unknown[]): HeuristicMetric => new (opikClass<HeuristicMetric>(className))(...args);

export const OPIK_HEURISTICS: readonly HeuristicDefinition[] = [
  {
    name: 'IsJson', levels: OUTPUT_LEVELS, requirements: ['finalResponse'], options: [],
    description: '1 when the output parses as JSON, else 0.',
    input: (id, target) => ({ output: outputOf(id, target) }),
    create: () => construct('IsJson', 'is_json_metric', false),
  },
  {
    name: 'Contains', levels: OUTPUT_LEVELS, requirements: ['finalResponse', 'substring (option)'], options: ['substring', 'case_sensitive'],
    description: '1 when the output contains the "substring" option (case-insensitive unless case_sensitive: true), else 0.',
    input: (id, target, options) => {
      const substring = requiredString(id, options, 'substring', 'the text the output must contain');
      optionalBoolean(id, options, 'case_sensitive');
      return { output: outputOf(id, target), substring };
    },
    create: (options) => construct('Contains', 'contains', false, options.case_sensitive === true),
  },
  {
    name: 'RegexMatch', levels: OUTPUT_LEVELS, requirements: ['finalResponse', 'pattern (option)'], options: ['pattern', 'flags'],
    description: '1 when the "pattern" option (a JavaScript regular expression, with optional "flags") matches the output, else 0.',
    input: (id, target, options) => {
      const pattern = requiredString(id, options, 'pattern', 'a regular expression the output must match');
      const flags = optionalString(id, options, 'flags');
      checkedPattern(id, pattern, flags);
      return { output: outputOf(id, target), pattern, ...(flags ? { flags } : {}) };
    },
    create: () => construct('RegexMatch', 'regex_match', false),
  },
  {
    name: 'ExactMatch', levels: OUTPUT_LEVELS, requirements: ['finalResponse', 'reference (option or attribute)'], options: ['reference'],
    description: '1 when the output equals the reference ("reference" option, else the reference attribute), both trimmed, else 0.',
    input: (id, target, options) => ({ output: outputOf(id, target), expected: referenceOf(id, target, options) }),
    create: () => construct('ExactMatch', 'exact_match', false),
  },
];
