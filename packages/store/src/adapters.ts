import { MceError } from '@mce/core';
import type { OpenStoreOptions } from './open.js';
import type { KnowledgeGraphStore, StoreKind } from './types.js';
import type { StoreTarget } from './url.js';

/** What a store package exports for `openStore` to load it by URL scheme. */
export interface StoreAdapter {
  createStore(target: StoreTarget, options: OpenStoreOptions): KnowledgeGraphStore | Promise<KnowledgeGraphStore>;
}

/** The package that serves each store kind but the embedded default. */
export const STORE_PACKAGES: Record<Exclude<StoreKind, 'sqlite'>, string> = {
  postgres: '@mce/store-postgres',
  neo4j: '@mce/store-neo4j',
};

/** A store URL whose adapter package is not installed: the message says what to install. */
export class StoreAdapterMissingError extends MceError {
  readonly kind = 'bad-input' as const;
  override readonly name = 'StoreAdapterMissingError';
}

/** Load the adapter of a store kind on demand (its driver with it). */
export async function loadStoreAdapter(kind: Exclude<StoreKind, 'sqlite'>): Promise<StoreAdapter> {
  const name = STORE_PACKAGES[kind];
  let loaded: Partial<StoreAdapter>;
  try {
    // A specifier in a variable: the adapter is an optional peer, resolved only now (and not a build-time reference).
    loaded = (await import(name)) as Partial<StoreAdapter>;
  } catch (error) {
    if (isPackageMissing(error, name)) {
      throw new StoreAdapterMissingError(`the ${kind} store is a package of its own: npm install ${name}`, { cause: error });
    }
    throw error;
  }
  if (typeof loaded.createStore !== 'function') throw new StoreAdapterMissingError(`${name} does not export createStore: is it an mce store package?`);
  return loaded as StoreAdapter;
}

/** A failed import or require of package `name` itself (not of something it imports in turn being broken). */
export function isPackageMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown }).code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((error as Error).message).includes(name);
}
