/**
 * Reading a judge reply: the integer after the last `Score:` and, when the reply came with token
 * log-probabilities, the expected score over the digits 1–5 at that position (G-Eval style).
 */

export interface TopLogprob {
  token: string;
  logprob: number;
}
export interface TokenLogprob {
  token: string;
  logprob: number;
  top_logprobs?: TopLogprob[];
}

const SCORE_LABEL = /score\s*[:：]/gi;
/**
 * After the label: spaces and markdown emphasis, then the digit — not part of a longer number, not a fraction of
 * another scale (`3/10`; `3/5` is this one) and not a range (`1-5`, the scale restated).
 */
const AFTER_LABEL = /^[\s*_]*([1-5])(?![\d.]*\d)(?!\s*\/\s*(?!5(?!\d))\d)(?!\s*[-–—]\s*\d)/;

/** Character offset of the score digit after the last `Score:` label, or undefined. */
function lastScoreDigitOffset(text: string): number | undefined {
  let last: RegExpExecArray | undefined;
  for (const match of text.matchAll(SCORE_LABEL)) last = match as RegExpExecArray;
  if (!last) return undefined;
  const start = last.index + last[0].length;
  const rest = AFTER_LABEL.exec(text.slice(start));
  if (!rest || rest[1] === undefined) return undefined;
  return start + rest[0].length - 1;
}

/** The integer 1–5 after the last `Score:` in the reply, or undefined when there is none. */
export function parseScore(text: string): number | undefined {
  const offset = lastScoreDigitOffset(text);
  return offset === undefined ? undefined : Number(text[offset]);
}

/** The reply text without its final `Score:` line: the judge's reasoning. */
export function reasoningOf(text: string): string {
  const lines = text.trim().split('\n');
  while (lines.length > 0 && /^\W*score\s*[:：]/i.test(lines[lines.length - 1] ?? '')) lines.pop();
  const reasoning = lines.join('\n').trim().replace(/^\W*reasoning\s*[:：]\s*/i, '');
  return reasoning || text.trim();
}

/** A trimmed token that is one score digit (" 4", "4", "4\n" → 4); anything else → undefined. */
function digitOf(token: string): number | undefined {
  const trimmed = token.replace(/[\s*_]/g, '');
  return /^[1-5]$/.test(trimmed) ? Number(trimmed) : undefined;
}

export interface LogprobScore {
  /** Expected score in [1, 5], renormalised over the probability mass of the digits 1–5. */
  expected: number;
  /** Probability mass of the digits 1–5 at the score position (before renormalising). */
  mass: number;
  /** Probability per digit (duplicates such as " 4" and "4" summed). */
  distribution: Record<string, number>;
}

/**
 * The expected score from the token log-probabilities of a reply: locate the token carrying the digit after the
 * last `Score:` (tokens concatenated, so a label split as "Score" + ":" is found), sum the probabilities of the
 * alternatives that are the digits 1–5. Undefined when the position is not found or holds no digit mass.
 */
export function logprobScore(tokens: readonly TokenLogprob[]): LogprobScore | undefined {
  const text = tokens.map((t) => t.token).join('');
  const offset = lastScoreDigitOffset(text);
  if (offset === undefined) return undefined;
  let start = 0;
  const position = tokens.find((t) => {
    if (start + t.token.length > offset) return true;
    start += t.token.length;
    return false;
  });
  if (!position) return undefined;
  // A token such as ": 4" carries text before the digit; its alternatives (": 5", …) share that prefix.
  const prefix = position.token.slice(0, offset - start);
  // The chosen token belongs to the distribution even when the endpoint's top alternatives leave it out (sampled
  // at a temperature, it may be an unlikely one).
  const top = position.top_logprobs ?? [];
  const alternatives = top.some((alt) => alt.token === position.token) ? top : [...top, position];
  const distribution: Record<string, number> = {};
  let mass = 0;
  let weighted = 0;
  for (const alt of alternatives) {
    const digit = digitOf(prefix && alt.token.startsWith(prefix) ? alt.token.slice(prefix.length) : alt.token);
    if (digit === undefined || !Number.isFinite(alt.logprob)) continue;
    const p = Math.exp(alt.logprob);
    distribution[digit] = (distribution[digit] ?? 0) + p;
    mass += p;
    weighted += digit * p;
  }
  if (mass <= 0) return undefined;
  return { expected: weighted / mass, mass, distribution };
}

/** The reported value for a 1–5 score: (score − 1) / 4, in [0, 1]. */
export function scoreToValue(score: number): number {
  return (score - 1) / 4;
}
