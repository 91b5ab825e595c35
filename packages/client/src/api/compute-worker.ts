/**
 * The worker thread of compute-thread.ts: an MCEClient of its own over the server's store and configuration, which
 * computes and stores what it is sent and answers the computation as the UTF-8 bytes of its JSON (serialised and encoded
 * here, then moved to the server, not copied: a 40 MB string posted back would be copied onto the server's heap and
 * encoded again there, ~150 ms of its event loop) or as a digest for a computation's summary.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SessionComputation } from '@mce/core';
import { MCEClient, type ComputeRequest } from '../mce-client.js';
import type { MceConfig } from '../config/index.js';
import { digestOf } from './computations.js';
import { withPriceWarnings } from '../price-fallback.js';

interface Job {
  id: number;
  sessionId: string;
  request: ComputeRequest;
  answer: 'json' | 'digest';
}

const utf8 = new TextEncoder();
const { config, env } = workerData as { config: MceConfig; env: NodeJS.ProcessEnv };
const opened = MCEClient.open({ config, env });

async function run(job: Job): Promise<void> {
  try {
    const client = await opened;
    const [computation] = (await client.computeAndStore(job.sessionId, job.request)) as [SessionComputation];
    if (job.answer === 'json') {
      const json = utf8.encode(JSON.stringify(withPriceWarnings(computation)));
      parentPort!.postMessage({ id: job.id, json }, [json.buffer]);
    }
    else parentPort!.postMessage({ id: job.id, digest: digestOf(computation) });
  } catch (error) {
    const e = error as Error & { sessionIds?: readonly string[] };
    parentPort!.postMessage({ id: job.id, error: { name: e.name, message: e.message, ...(e.sessionIds ? { sessionIds: [...e.sessionIds] } : {}) } });
  }
}

parentPort!.on('message', (job: Job) => void run(job));
