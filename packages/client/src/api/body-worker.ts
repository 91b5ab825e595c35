/** The worker thread of body-reader.ts: reads each body posted to it and answers its SessionBody. */
import { parentPort } from 'node:worker_threads';
import { readSessionBody } from './session-body.js';

// A body's bytes are decoded here, as `Request.text()` does (UTF-8, a BOM dropped): its text never exists on the loop.
const utf8 = new TextDecoder();

parentPort?.on('message', ({ id, text, bytes }: { id: number; text?: string; bytes?: Uint8Array }) => {
  try {
    parentPort!.postMessage({ id, body: readSessionBody(text ?? utf8.decode(bytes)) });
  } catch (error) {
    parentPort!.postMessage({ id, failure: error instanceof Error ? error.message : String(error) });
  }
});
