/** What the route handlers work with: the client, and the server's own machinery beside it. */
import type { MCEClient } from '../../mce-client.js';
import type { FailureLog } from '../ndjson.js';
import type { BodyReader } from '../body-reader.js';
import type { Computations } from '../computations.js';
import type { ComputeThread } from '../compute-thread.js';

export interface RouteDeps {
  client: MCEClient;
  /** Reads `POST /sessions` bodies, big ones off the event loop. */
  bodyReader: BodyReader;
  /** The asynchronous computations (`Prefer: respond-async`). */
  computations: Computations;
  /** Computations off the event loop, when the server has a built compute thread. */
  thread: ComputeThread | undefined;
  /** Where a failure after an answer started (a stream) is logged. */
  log: FailureLog;
}
