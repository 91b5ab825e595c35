/**
 * `mce check --github`: one GitHub Actions workflow command per threshold not held (`::error`) or not checked
 * (`::warning`), pointing at the threshold's line in mce_config.yaml, so the run's summary and the file's diff show it.
 */
import { bounds, type CheckCase } from './evaluate.js';

/** Workflow-command escaping: data escapes %, CR and LF; properties also `:` and `,`. */
const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const property = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

export function githubAnnotations(cases: readonly CheckCase[], configFile: string | undefined): string[] {
  return cases
    .filter((c) => c.status !== 'pass')
    .map((c) => {
      const t = c.threshold;
      const kind = c.status === 'skipped' ? 'warning' : 'error';
      const place = configFile ? [`file=${property(configFile)}`, ...(t.line !== undefined ? [`line=${t.line}`] : [])] : [];
      const title = `mce check ${c.status === 'fail' ? 'failed' : c.status === 'error' ? 'error' : 'skipped'}: ${t.level} ${t.metric} ${t.per} ${bounds(t)}`;
      return `::${kind} ${[...place, `title=${property(title)}`].join(',')}::${data(`${c.sessionId}: ${c.message}`)}`;
    });
}
