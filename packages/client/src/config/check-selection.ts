import { MetricOptionsError, MetricSelectionError, type MetricEngine } from '@mce/core';
import { ConfigError, optionsConfigError, selectionConfigError, type MceConfig } from './mce-config.js';

/**
 * A metric selection read from a file is checked when a client opens (and by `mce metric list`), and a bad entry is
 * reported as a problem of that file at its line (an unknown name, a level the metric does not have, an option it
 * does not read), not at the first computation.
 */
export function checkConfiguredSelection(config: MceConfig, engine: MetricEngine): void {
  const problems: ConfigError['problems'] = [];
  let selected = new Set<string>();
  if (config.source && config.metrics) {
    selected = new Set(Object.values(config.metrics).flat());
    try {
      engine.plan({ metrics: config.metrics, recursive: true });
    } catch (error) {
      const inFile = error instanceof MetricSelectionError && selectionConfigError(config, error);
      if (!inFile) throw error;
      problems.push(...inFile.problems);
    }
  }
  try {
    engine.checkOptions(config.metricOptions);
  } catch (error) {
    // An unknown metric selected with inline options is reported once, by the selection.
    const rest = error instanceof MetricOptionsError ? error.problems.filter((p) => p.option !== undefined || !selected.has(p.metric)) : [];
    const inFile = error instanceof MetricOptionsError && optionsConfigError(config, new MetricOptionsError(rest));
    if (!inFile) throw error;
    problems.push(...inFile.problems);
  }
  if (problems.length > 0) throw new ConfigError(config.source as string, problems);
}
