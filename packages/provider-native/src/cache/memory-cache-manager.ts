/** A record/replay cache held in memory: for tests, benchmarks and one-process runs that need no file. */
import type { CacheManager, CachedComputation } from '@mce/core';

export class MemoryCacheManager implements CacheManager {
  readonly entries = new Map<string, CachedComputation>();
  readonly read: boolean;
  readonly write: boolean;

  constructor(options: { read?: boolean; write?: boolean } = {}) {
    this.read = options.read ?? true;
    this.write = options.write ?? true;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Promise<CachedComputation | undefined> {
    const hit = this.entries.get(key);
    return Promise.resolve(hit ? structuredClone(hit) : undefined);
  }

  set(key: string, value: CachedComputation): Promise<void> {
    this.entries.set(key, structuredClone(value));
    return Promise.resolve();
  }
}
