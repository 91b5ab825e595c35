/**
 * The worker of compute-thread.ts (a child process): an MCEClient of its own over the server's store and configuration, which
 * computes and stores what it is sent and answers the computation as the UTF-8 bytes of its JSON, written to the file
 * it is given (serialised and encoded here; the server streams the file: a 40 MB string posted back would be copied onto
 * the server's heap and encoded again there, ~150 ms of its event loop) or as a digest for a computation's summary.
 */
import { writeFileSync } from 'node:fs';
import type { SessionComputation } from '@mce/core';
import { MCEClient, type ComputeRequest } from '../mce-client.js';
import type { MceConfig } from '../config/index.js';
import { digestOf } from './computations.js';
import { withPriceWarnings } from '../price-fallback.js';
import { workerPort } from './worker-port.js';

interface Job {
  id: number;
  sessionId: string;
  request: ComputeRequest;
  answer: 'json' | 'digest';
  /** Where the JSON answer is written. */
  file?: string;
}

const utf8 = new TextEncoder();
const port = workerPort();
const opened = port.data.then((data) => {
  const { config, env } = data as { config: MceConfig; env: NodeJS.ProcessEnv };
  return MCEClient.open({ config, env });
});

async function run(job: Job): Promise<void> {
  try {
    const client = await opened;
    const [computation] = (await client.computeAndStore(job.sessionId, job.request)) as [SessionComputation];
    if (job.answer === 'json') {
      const json = utf8.encode(JSON.stringify(withPriceWarnings(computation)));
      writeFileSync(job.file!, json);
      port.post({ id: job.id, bytes: json.byteLength });
    }
    else port.post({ id: job.id, digest: digestOf(computation) });
  } catch (error) {
    const e = error as Error & { sessionIds?: readonly string[] };
    port.post({ id: job.id, error: { name: e.name, message: e.message, ...(e.sessionIds ? { sessionIds: [...e.sessionIds] } : {}) } });
  }
}

port.onMessage((job: Job) => void run(job));
