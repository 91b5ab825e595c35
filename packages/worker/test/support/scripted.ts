/** A processor whose calls a test scripts and reads back, and a gate to hold a call in flight. */
import type { BatchItem, BatchOutcome, BatchProcessor } from '@mce/worker';

/**
 * Records every processBatch call; `refuse` decides whether a call throws, and what, before the real processor runs
 * (it may wait first: a test can hold a call in flight).
 */
export class ScriptedProcessor implements BatchProcessor {
  readonly calls: BatchItem[][] = [];
  constructor(
    public inner: BatchProcessor,
    public refuse: (items: BatchItem[], call: number) => Error | undefined | Promise<Error | undefined>,
  ) {}

  async processBatch(items: BatchItem[]): Promise<BatchOutcome> {
    this.calls.push(items);
    const error = await this.refuse(items, this.calls.length);
    if (error) throw error;
    return this.inner.processBatch(items);
  }

  /** The session ids of each call, in order. */
  sessionsPerCall(): string[][] {
    return this.calls.map((items) => items.map((item) => item.sessionId));
  }
}

/** A promise the test resolves when it chooses. */
export function gate(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}
