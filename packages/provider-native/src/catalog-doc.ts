import type { MetricMetadata, MetricNature } from '@mce/core';

const NATURES: ReadonlyArray<[MetricNature, string]> = [
  ['deterministic', 'Deterministic metrics'],
  ['aggregate', 'Aggregates (derived from other metrics\' results)'],
  ['llm-judged', 'LLM-judged metrics'],
];

const list = (items: readonly string[]) => (items.length > 0 ? items.map((i) => `\`${i}\``).join(', ') : '—');

/**
 * The metric reference page (docs/metrics.md) written from the metrics' own metadata, so that the page and
 * `mce metric show` can never disagree. A metric of a nature not listed above is left out.
 */
export function catalogMarkdown(metrics: readonly MetricMetadata[]): string {
  const out: string[] = [
    '# Metric reference',
    '',
    '<!-- Written by packages/provider-native/scripts/write-metrics-doc.mjs from the metrics\' metadata; a test checks it is current. -->',
    '',
    'Every metric of the native provider (`mce`), as `mce metric show NAME` prints it. Levels are the ontology',
    'classes a metric measures; options are the `metric_options` keys it reads (see configuration.md). A metric that',
    'cannot compute a value reports a failure (never a score); one that does not apply reports a skip with the reason.',
    '',
  ];
  for (const [nature, title] of NATURES) {
    const group = metrics.filter((m) => m.nature === nature);
    if (group.length === 0) continue;
    out.push(`## ${title}`, '');
    out.push('| Metric | Levels | Unit | Range |', '|---|---|---|---|');
    for (const m of group) out.push(`| [${m.name}](#${m.name.toLowerCase()}) | ${m.levels.join(', ')} | ${m.unit} | ${m.valueRange} |`);
    out.push('');
    for (const m of group) {
      out.push(`### ${m.name}`, '', m.description, '');
      out.push(`- Levels: ${m.levels.join(', ')}; unit: ${m.unit}; range: ${m.valueRange}`);
      out.push(`- Needs: ${list(m.requirements)}`);
      if (m.dependsOn.length > 0) out.push(`- Derived from: ${list(m.dependsOn)}`);
      const options = m.options === undefined ? 'not declared (any option is passed through)' : m.options.length === 0 ? 'none' : list(m.options);
      out.push(`- Options: ${options}`);
      out.push('');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}
