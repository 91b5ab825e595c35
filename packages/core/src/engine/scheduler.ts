import type { OntologyLevel } from '../ontology/types.js';
import { ONTOLOGY_LEVELS } from '../ontology/types.js';
import { DependencyCycleError, MetricSelectionError, UnknownDependencyError } from './errors.js';
import type { MetricRegistry, RegisteredMetric } from './metric-registry.js';
import { likelyMetric } from './metric-options.js';

/** One unit of scheduling: a metric at one ontology level (computed on every element of that level). */
export interface ScheduledTask {
  readonly entry: RegisteredMetric;
  readonly level: OntologyLevel;
  /** False when the task was added only because a selected metric depends on it. */
  readonly requested: boolean;
  /** What the metric may look up: each name in its `dependsOn`, and each dependency's key, → that `provider:name`. */
  readonly dependencies: ReadonlyMap<string, string>;
}

export interface ExecutionPlan {
  /** Tasks grouped so that every task runs after all tasks of the metrics it depends on; a stage's tasks are independent. */
  readonly stages: readonly (readonly ScheduledTask[])[];
  /** `provider:name` of the metrics some task depends on (their results must be kept for look-ups). */
  readonly dependencyKeys: ReadonlySet<string>;
}

export interface MetricRequest {
  metric: string;
  level: OntologyLevel;
}

/**
 * Orders (level, metric) tasks by `dependsOn`. A dependency is computed at every level it supports, even when
 * only the dependent was selected (an aggregate needs the call-level results it derives from).
 */
export class TopologicalScheduler {
  constructor(private readonly registry: MetricRegistry) {}

  plan(requests: readonly MetricRequest[]): ExecutionPlan {
    const requested = this.#resolveRequests(requests);
    const depth = new Map<string, number>();
    const dependencyKeys = new Set<string>();
    const dependencies = new Map<string, RegisteredMetric[]>();
    const lookupNames = new Map<string, Map<string, string>>();
    const visiting: string[] = [];

    const visit = (entry: RegisteredMetric): number => {
      const known = depth.get(entry.key);
      if (known !== undefined) return known;
      const onPath = visiting.indexOf(entry.key);
      if (onPath >= 0) throw new DependencyCycleError([...visiting.slice(onPath), entry.key]);
      visiting.push(entry.key);
      let d = 0;
      const deps: RegisteredMetric[] = [];
      const names = new Map<string, string>();
      for (const name of entry.metric.metadata.dependsOn) {
        const dep = this.registry.resolveDependency(name, entry.metric.metadata.provider);
        if (!dep) throw new UnknownDependencyError(entry.key, name);
        dependencyKeys.add(dep.key);
        deps.push(dep);
        names.set(name, dep.key).set(dep.key, dep.key);
        d = Math.max(d, visit(dep) + 1);
      }
      visiting.pop();
      dependencies.set(entry.key, deps);
      lookupNames.set(entry.key, names);
      depth.set(entry.key, d);
      return d;
    };

    for (const { entry } of requested) visit(entry);
    const task = (entry: RegisteredMetric, level: OntologyLevel, isRequested: boolean): ScheduledTask => ({
      entry,
      level,
      requested: isRequested,
      dependencies: lookupNames.get(entry.key) as ReadonlyMap<string, string>,
    });
    // Insertion order = requests first, then dependencies as discovered: the order within a stage.
    const tasks = new Map<string, ScheduledTask>();
    for (const { entry, level } of requested) tasks.set(`${entry.key}@${level}`, task(entry, level, true));
    // Each metric's dependencies are added once: re-walking every path would take exponential time in a layered graph.
    const added = new Set<string>();
    const addDependencies = (entry: RegisteredMetric): void => {
      if (added.has(entry.key)) return;
      added.add(entry.key);
      for (const dep of dependencies.get(entry.key) ?? []) {
        for (const level of dep.metric.metadata.levels) {
          const id = `${dep.key}@${level}`;
          if (!tasks.has(id)) tasks.set(id, task(dep, level, false));
        }
        addDependencies(dep);
      }
    };
    for (const { entry } of requested) addDependencies(entry);

    const stages: ScheduledTask[][] = [];
    for (const t of tasks.values()) {
      const d = depth.get(t.entry.key) as number;
      while (stages.length <= d) stages.push([]);
      (stages[d] as ScheduledTask[]).push(t);
    }
    return { stages: stages.filter((s) => s.length > 0), dependencyKeys };
  }

  #resolveRequests(requests: readonly MetricRequest[]): Array<{ entry: RegisteredMetric; level: OntologyLevel }> {
    const problems: { metric: string; level: string; problem: string }[] = [];
    const resolved: Array<{ entry: RegisteredMetric; level: OntologyLevel }> = [];
    for (const { metric, level } of requests) {
      let entry: RegisteredMetric | undefined;
      try {
        entry = this.registry.get(metric);
      } catch (error) {
        problems.push({ metric, level, problem: (error as Error).message });
        continue;
      }
      if (!entry) {
        problems.push({ metric, level, problem: `Unknown metric "${metric}" selected at ${level}${likelyMetric(this.registry, metric)}` });
      } else if (!(ONTOLOGY_LEVELS as readonly string[]).includes(level)) {
        problems.push({ metric, level, problem: `Unknown ontology level "${level}" for metric "${metric}" (levels: ${ONTOLOGY_LEVELS.join(', ')})` });
      } else if (!entry.metric.metadata.levels.includes(level)) {
        problems.push({
          metric,
          level,
          problem: `Metric "${entry.key}" does not support level ${level} (it supports ${entry.metric.metadata.levels.join(', ')})`,
        });
      } else {
        resolved.push({ entry, level });
      }
    }
    if (problems.length > 0) throw new MetricSelectionError(problems);
    return resolved;
  }
}
