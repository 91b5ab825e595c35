/**
 * What the steps of normaliseSession share: a span as a node of the session's span tree, the read's warning sink,
 * and small helpers over the tree and over the objects the steps build.
 */
import type { Classification } from '../dialects/index.js';
import type { IngestWarning, WarningSink } from '../errors.js';
import type { DocumentPositions } from '../json-position.js';
import { nearestAncestor } from '../links.js';
import { spanPath, type SpanRecord } from '../span.js';

export interface Node {
  span: SpanRecord;
  cls: Classification;
  /** Whether the span became a call of the session (not plumbing, not merged into an outer span). */
  element?: boolean;
  parent?: Node;
}

export interface NormaliseOptions {
  warnings: WarningSink;
  file?: string;
  /**
   * The read's warnings waiting for places in its files that are one JSON document: a warning about a span read from
   * such a file waits there for the span's line and column. Without it, such a warning names the file only.
   */
  positions?: DocumentPositions;
}

/** The session being normalised and where its warnings go. */
export interface Context {
  sessionId: string;
  opts: NormaliseOptions;
  /** Adds a warning about `span`, named where the span was read. */
  warnAbout(span: SpanRecord, warning: IngestWarning): void;
  /** A warning sink for one span's malformed counts. */
  badCount(span: SpanRecord): (message: string) => void;
}

export function createContext(sessionId: string, opts: NormaliseOptions): Context {
  /**
   * Names where the span was read: its own file (a session read from several files has spans of each), its line in
   * JSON Lines; in a file that is one document, its line and column, found once the read is over.
   */
  const warnAbout = (span: SpanRecord, warning: IngestWarning): void => {
    const file = span.file ?? opts.file;
    const named = { ...warning, ...ifDefined('file', file), ...ifDefined('line', span.line) };
    if (span.line !== undefined || file === undefined || opts.positions === undefined) opts.warnings.add(named);
    else opts.positions.of(file).warn(opts.warnings, named, () => {
      const path = spanPath(span);
      return path === undefined ? undefined : { path };
    });
  };
  const badCount = (span: SpanRecord) => (message: string) => warnAbout(span, { code: 'malformed-span', message, sessionId });
  return { sessionId, opts, warnAbout, badCount };
}

export const ifDefined = <K extends string, V>(key: K, v: V | undefined): Partial<Record<K, V>> =>
  (v === undefined ? {} : { [key]: v }) as Partial<Record<K, V>>;

/** Assign only defined values, so exported sessions never carry `key: undefined`. */
export function set<T extends object>(o: T, key: string, v: unknown): void {
  if (v !== undefined) (o as Record<string, unknown>)[key] = v;
}

// Loops, not Math.min(...list): a session may hold more spans than a call may have arguments.
export function minOf<T>(list: readonly T[], f: (x: T) => number): number {
  let m = Number.POSITIVE_INFINITY;
  for (const x of list) m = Math.min(m, f(x));
  return m;
}
export function maxOf<T>(list: readonly T[], f: (x: T) => number): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const x of list) m = Math.max(m, f(x));
  return m;
}

export const byStart = (a: { startTime: number }, b: { startTime: number }) => a.startTime - b.startTime;

export const isElement = (n: Node) => !!n.element;

export function nearest(node: Node, pred: (n: Node) => boolean): Node | undefined {
  for (let p = node.parent; p; p = p.parent) if (pred(p)) return p;
  return undefined;
}

/** `nearestAncestor` over the span tree: the nearest node above `node` that `pred` holds for, remembered per node. */
export function nearestOnce(pred: (n: Node) => boolean): (node: Node) => Node | undefined {
  return nearestAncestor((n: Node) => n.parent, pred);
}
