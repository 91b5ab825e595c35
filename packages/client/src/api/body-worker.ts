/** The worker of body-reader.ts (a child process): reads each body posted to it and answers its SessionBody. */
import { readFileSync } from 'node:fs';
import { readSessionBody } from './session-body.js';
import { workerPort } from './worker-port.js';

// A body's bytes are decoded here, as `Request.text()` does (UTF-8, a BOM dropped): its text never exists on the loop.
const utf8 = new TextDecoder();

const port = workerPort();
// A body's bytes come in a file the server wrote (it removes it once answered).
port.onMessage(({ id, text, file }: { id: number; text?: string; file?: string }) => {
  try {
    port.post({ id, body: readSessionBody(text ?? utf8.decode(readFileSync(file!))) });
  } catch (error) {
    port.post({ id, failure: error instanceof Error ? error.message : String(error) });
  }
});
