/**
 * CyclesCount's scan, computed in O(n log² n) instead of the definition's O(n²):
 *
 *   i = 0; while i < n: for k = 2 … ⌊(n − i)/2⌋, if seq[i:i+k] = seq[i+k:i+2k] then count += 1, i += k, stop;
 *   if no k matched, i += 1.
 *
 * The scan only needs, for every i, the smallest k ≥ 2 with a square (a block immediately repeated) of half-length k
 * starting at i. Every square lies in a maximal p-periodic interval whose period p divides k (Fine–Wilf), and such an
 * interval holds a square of half-length max(p, 2) at each i with room for it. The intervals of period p are found
 * by comparing positions j and j + p for j a multiple of p (each interval of length ≥ 2p contains such a pair), with
 * longest-common-extension queries answered by double polynomial hashing and binary search. Taking periods in
 * increasing order, the first interval to cover a position gives its smallest k; a "next unassigned position" union-
 * find assigns each position once. `countCyclesNaive` is the definition as written (tests compare the two).
 */

const M1 = 67108859; // primes below 2^26: products of two residues stay below 2^53
const M2 = 67108837;
const B1 = 1_000_003 % M1;
const B2 = 911_382_323 % M2;

/** Interns any values to small positive integers (equal values, equal ids). */
function intern<T>(seq: readonly T[]): Int32Array {
  const ids = new Map<T, number>();
  const out = new Int32Array(seq.length);
  for (let i = 0; i < seq.length; i++) {
    const value = seq[i] as T;
    let id = ids.get(value);
    if (id === undefined) {
      id = ids.size + 1;
      ids.set(value, id);
    }
    out[i] = id;
  }
  return out;
}

class Hashes {
  readonly #h1: Float64Array;
  readonly #h2: Float64Array;
  readonly #p1: Float64Array;
  readonly #p2: Float64Array;

  constructor(s: Int32Array) {
    const n = s.length;
    this.#h1 = new Float64Array(n + 1);
    this.#h2 = new Float64Array(n + 1);
    this.#p1 = new Float64Array(n + 1);
    this.#p2 = new Float64Array(n + 1);
    this.#p1[0] = 1;
    this.#p2[0] = 1;
    for (let i = 0; i < n; i++) {
      this.#h1[i + 1] = (this.#h1[i]! * B1 + s[i]!) % M1;
      this.#h2[i + 1] = (this.#h2[i]! * B2 + s[i]!) % M2;
      this.#p1[i + 1] = (this.#p1[i]! * B1) % M1;
      this.#p2[i + 1] = (this.#p2[i]! * B2) % M2;
    }
  }

  /** seq[a, a+len) = seq[b, b+len) (up to a hash collision, ~1 in 4.5·10^15). */
  equal(a: number, b: number, len: number): boolean {
    const h1 = this.#h1;
    const p1 = this.#p1[len]!;
    const x1 = (((h1[a + len]! - h1[a]! * p1) % M1) + M1) % M1;
    const y1 = (((h1[b + len]! - h1[b]! * p1) % M1) + M1) % M1;
    if (x1 !== y1) return false;
    const h2 = this.#h2;
    const p2 = this.#p2[len]!;
    const x2 = (((h2[a + len]! - h2[a]! * p2) % M2) + M2) % M2;
    const y2 = (((h2[b + len]! - h2[b]! * p2) % M2) + M2) % M2;
    return x2 === y2;
  }
}

/** Largest L ≤ limit with equal(a, b, L), by doubling then binary search (equality is monotone in L). */
function extension(h: Hashes, a: number, b: number, limit: number): number {
  let lo = 0; // known equal
  let step = 1;
  while (lo + step <= limit && h.equal(a, b, lo + step)) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(limit, lo + step) + 1; // known different (or past the limit)
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (h.equal(a, b, mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** For each position, the smallest k ≥ 2 such that a block of length k starting there is immediately repeated (0: none). */
function smallestSquares(s: Int32Array): Int32Array {
  const n = s.length;
  const minK = new Int32Array(n);
  if (n < 4) return minK;
  const h = new Hashes(s);
  // next[i]: smallest unassigned position ≥ i (path-halving union-find over n + 1 slots).
  const next = new Int32Array(n + 1);
  for (let i = 0; i <= n; i++) next[i] = i;
  const find = (i: number): number => {
    while (next[i] !== i) {
      next[i] = next[next[i]!]!;
      i = next[i]!;
    }
    return i;
  };
  for (let p = 1; 2 * p <= n; p++) {
    const k = p < 2 ? 2 : p;
    let j = 0;
    while (j + p < n) {
      if (s[j] !== s[j + p] && (j === 0 || s[j - 1] !== s[j + p - 1])) {
        j += p;
        continue;
      }
      const forward = extension(h, j, j + p, n - j - p);
      // Common suffix of seq[..j) and seq[..j+p): compare blocks ending at j and j + p.
      const backward = backwardExtension(h, j, j + p);
      const start = j - backward;
      const end = j + p + forward; // exclusive
      if (end - start >= 2 * k) {
        for (let i = find(start); i <= end - 2 * k; i = find(i + 1)) {
          minK[i] = k;
          next[i] = i + 1;
        }
      }
      // Another maximal p-periodic interval overlaps this one by less than p.
      const resume = Math.max(j + p, end - p + 1);
      j = Math.ceil(resume / p) * p;
    }
  }
  return minK;
}

/** Largest L ≤ a with seq[a−L, a) = seq[b−L, b) (a < b). */
function backwardExtension(h: Hashes, a: number, b: number): number {
  let lo = 0;
  let step = 1;
  while (lo + step <= a && h.equal(a - lo - step, b - lo - step, lo + step)) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(a, lo + step) + 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (h.equal(a - mid, b - mid, mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Below this length the definition's direct scan is cheaper than building the hashes. */
const DIRECT_SCAN_MAX = 128;

/** CyclesCount over a sequence (values compared with SameValueZero): the direct scan for short ones, else the fast one. */
export function countCycles<T>(seq: readonly T[]): number {
  return seq.length <= DIRECT_SCAN_MAX ? countCyclesNaive(seq) : countCyclesFast(seq);
}

/** CyclesCount in O(n log² n) (see the top of this file). */
export function countCyclesFast<T>(seq: readonly T[]): number {
  const minK = smallestSquares(intern(seq));
  let count = 0;
  let i = 0;
  while (i < seq.length) {
    const k = minK[i]!;
    if (k > 0) {
      count += 1;
      i += k;
    } else i += 1;
  }
  return count;
}

/** The definition as written, O(n²) in the worst case: the reference `countCycles` is checked against. */
export function countCyclesNaive<T>(seq: readonly T[]): number {
  const n = seq.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    let advanced = false;
    const maxK = Math.floor((n - i) / 2);
    for (let k = 2; k <= maxK; k++) {
      let equal = true;
      for (let j = 0; j < k; j++) {
        if (seq[i + j] !== seq[i + k + j]) {
          equal = false;
          break;
        }
      }
      if (equal) {
        count += 1;
        i += k;
        advanced = true;
        break;
      }
    }
    if (!advanced) i += 1;
  }
  return count;
}
