/** The record/replay cache a run uses, from the `cache:` section of mce_config.yaml (MCE_METRIC_CACHE applied). */
import { SqliteDriverMissingError } from '@mce/store';
import { SqliteCacheManager } from './sqlite-cache-manager.js';

/** Where the cache lives when `cache.path` is null: relative to the working directory. */
export const DEFAULT_METRIC_CACHE_PATH = '.mce/cache.db';

export interface MetricCacheSettings {
  path?: string | null;
  read?: boolean;
  write?: boolean;
  /** false (MCE_METRIC_CACHE=false, `cache.enabled: false`) → no cache. */
  enabled?: boolean;
}

/**
 * The SQLite cache for these settings, or undefined when the cache is off (disabled, or neither read nor write). An
 * install without better-sqlite3 (PostgreSQL only) runs without the default cache, saying so to `onNoDriver`; a cache
 * path set on purpose without it is an error naming what to install.
 */
export function openMetricCache(settings: MetricCacheSettings = {}, onNoDriver?: (message: string) => void): SqliteCacheManager | undefined {
  const read = settings.read ?? true;
  const write = settings.write ?? true;
  if (settings.enabled === false || (!read && !write)) return undefined;
  try {
    return new SqliteCacheManager(settings.path ?? DEFAULT_METRIC_CACHE_PATH, { read, write });
  } catch (error) {
    if (!(error instanceof SqliteDriverMissingError) || settings.path) throw error;
    onNoDriver?.('the judge cache is off: it is a SQLite file and better-sqlite3 is not installed (npm install better-sqlite3 to have it)');
    return undefined;
  }
}
