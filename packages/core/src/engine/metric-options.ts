import { distance } from 'fastest-levenshtein';
import type { MetricRegistry } from './metric-registry.js';
import { MetricOptionsError } from './errors.js';

/** Options per metric name (`provider:name` or a bare name), as a run is given them. */
export type MetricOptionsByName = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** `systemOneModel` → `system_one_model`: the library API may write options in camelCase (metrics read snake_case). */
export const snakeCase = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The candidate closest to `word` (ignoring case), when it is near enough to be a likely typo. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** ` (did you mean "x"?)` when a candidate is close to `word`, else nothing. */
export const didYouMean = (word: string, candidates: Iterable<string>): string => {
  const near = closest(word, candidates);
  return near ? ` (did you mean "${near}"?)` : '';
};

/** ` (did you mean "Duration"?)` for a misspelt metric name, or nothing when no registered name is close. */
export function likelyMetric(registry: MetricRegistry, name: string): string {
  return registry.unknownHint?.(name) ?? didYouMean(name, registry.list().flatMap((e) => [e.key, e.metric.metadata.name]));
}

/**
 * Throws a MetricOptionsError naming every option set for a metric that is not registered, and every option a metric
 * does not read (when its metadata lists the options it reads).
 */
export function checkMetricOptions(registry: MetricRegistry, metricOptions: MetricOptionsByName | undefined): void {
  const problems: { metric: string; option?: string; problem: string }[] = [];
  for (const [name, options] of Object.entries(metricOptions ?? {})) {
    let entry;
    try {
      entry = registry.get(name);
    } catch (error) {
      problems.push({ metric: name, problem: `options for ${(error as Error).message}` });
      continue;
    }
    if (!entry) {
      problems.push({ metric: name, problem: `options for unknown metric "${name}"${likelyMetric(registry, name)}` });
      continue;
    }
    const declared = entry.metric.metadata.options;
    if (declared === undefined) continue;
    for (const option of Object.keys(options)) {
      if (declared.includes(snakeCase(option))) continue;
      const reads = declared.length === 0 ? 'it takes no options' : `its options: ${declared.join(', ')}`;
      problems.push({ metric: name, option, problem: `${entry.key} has no option "${option}"${didYouMean(snakeCase(option), declared)}; ${reads}` });
    }
  }
  if (problems.length > 0) throw new MetricOptionsError(problems);
}
