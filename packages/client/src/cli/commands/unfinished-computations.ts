/**
 * What `mce serve` says when told to stop at once (a second signal while it waits for its computations): each one it
 * leaves undone, so none is lost without a word. Their results are not stored; submitted again, they run anew.
 */
import type { ComputationStatus } from '../../api/computations.js';

/** Computations named one a line at most; the others counted. */
const NAMED = 50;

export function unfinishedReport(unfinished: readonly ComputationStatus[]): string {
  const lines = [`mce API stopped at once: ${unfinished.length} computation${unfinished.length === 1 ? '' : 's'} left unfinished, ${unfinished.length === 1 ? 'its' : 'their'} results not stored (submit again to run):`];
  for (const c of unfinished.slice(0, NAMED)) lines.push(`  ${c.id} ${c.status}, session ${JSON.stringify(c.sessionId)}, submitted ${c.submittedAt}`);
  if (unfinished.length > NAMED) lines.push(`  … and ${unfinished.length - NAMED} more`);
  return `${lines.join('\n')}\n`;
}
