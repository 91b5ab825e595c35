/**
 * The worker's client over a store that must be there already (messages name sessions stored before): opened at once
 * when it is, else a pending processor that opens it once something has created it.
 */
import { openStore, type KnowledgeGraphStore, type MCEClient, type StoreNotFoundError } from '@mce/client';
import type { PendingProcessor } from './pending-processor.js';
import type { BatchProcessor } from './processor.js';

/**
 * Told by its name, not its class: `mce worker` runs from the bundled CLI, whose copy of the class is not the one
 * this package imports.
 */
const isStoreNotFound = (error: unknown): error is StoreNotFoundError => error instanceof Error && error.name === 'StoreNotFoundError';

/**
 * The client, or the error saying which store is not there (other errors are thrown). Without its store the rest of
 * the configuration is checked all the same, by `openWithout` (a client over a store of its own, closed at once): a
 * misspelt metric is an error at start-up, not once the store appears. That store is an in-memory SQLite one; where
 * better-sqlite3 is not installed (the worker image, on PostgreSQL) the check waits for the real store.
 */
export async function openStored(open: () => Promise<MCEClient>, openWithout: (store: KnowledgeGraphStore) => Promise<MCEClient>): Promise<MCEClient | StoreNotFoundError> {
  try {
    return await open();
  } catch (error) {
    if (!isStoreNotFound(error)) throw error;
    const store = await openStore('sqlite::memory:').catch(() => undefined);
    if (!store) return error;
    try {
      await (await openWithout(store)).close();
    } finally {
      await store.close();
    }
    return error;
  }
}

/** The processor over the client `opened`, or, while its store is missing, one that tries `open` again. */
export function processorWhenStored(
  opened: MCEClient | StoreNotFoundError,
  open: () => Promise<MCEClient>,
  processorOf: (client: MCEClient) => BatchProcessor,
): BatchProcessor | PendingProcessor {
  if (!isStoreNotFound(opened)) return processorOf(opened);
  return {
    reason: opened.message,
    tryStart: async () => {
      try {
        return processorOf(await open());
      } catch (error) {
        if (isStoreNotFound(error)) return undefined;
        throw error;
      }
    },
  };
}
