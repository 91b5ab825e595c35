/** The worker thread of body-reader.ts: reads each body posted to it and answers its SessionBody. */
import { parentPort } from 'node:worker_threads';
import { readSessionBody } from './session-body.js';

parentPort?.on('message', ({ id, text }: { id: number; text: string }) => {
  try {
    parentPort!.postMessage({ id, body: readSessionBody(text) });
  } catch (error) {
    parentPort!.postMessage({ id, failure: error instanceof Error ? error.message : String(error) });
  }
});
