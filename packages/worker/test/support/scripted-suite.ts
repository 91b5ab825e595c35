/**
 * The scaffold of the suites that run one worker over scripted processors (worker-isolate, worker-recovery): a store
 * of its own per test holding the suite's sessions, a worker whose log lines are kept, its counters, and messages
 * published one per session with ids `<prefix>-<i>`.
 */
import pino from 'pino';
import { MceWorker, type BatchProcessor } from '@mce/worker';
import { PG_URL } from '../../../../test-support/services.js';
import { Broker, testConfig, uniqueQueue, useBroker } from './amqp.js';
import { openService, type ServiceFixture } from './service.js';

/** The log message of a batch taken for an outage. */
export const OUTAGE_LOG = 'batch failed: messages go to the retry queue; no new batch during the pause';

export interface LogLine {
  msg?: string;
  pauseMs?: number;
  messages?: number;
  storedMessages?: number;
}

/** Call inside a `describe`: registers the broker (handed to `onBroker` too) and the clean-ups (see useBroker). */
export function useScriptedWorkers(sessions: readonly string[], onBroker: (broker: Broker) => void) {
  let broker: Broker;
  const cleanups = useBroker((b) => {
    broker = b;
    onBroker(b);
  });

  /** A store of its own holding the suite's sessions. */
  async function store(name: string): Promise<ServiceFixture> {
    const fixture = await openService(PG_URL, `worker_${name}_${process.pid}`, [...sessions]);
    cleanups.push(() => fixture.close());
    return fixture;
  }

  async function start(name: string, processor: BatchProcessor, overrides: Parameters<typeof testConfig>[1]) {
    const queue = uniqueQueue(name);
    const lines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
    const worker = new MceWorker({ config: testConfig(queue, overrides), processor, logger });
    cleanups.push(() => broker.deleteQueues(queue), () => worker.close());
    await worker.ready();
    const outagePauses = () => lines.filter((line) => line.msg === OUTAGE_LOG).map((line) => line.pauseMs);
    return { queue, worker, lines, outagePauses };
  }

  const counter = async (worker: MceWorker, name: string) =>
    Number(new RegExp(`${name} (\\d+)`).exec(await worker.metrics.registry.metrics())?.[1] ?? 0);

  /** One message per session, with message ids `<prefix>-<i>`, in order. */
  async function publish(queue: string, prefix: string, ids: readonly string[]): Promise<void> {
    for (const [i, id] of ids.entries()) await broker.publishRaw(queue, Buffer.from(JSON.stringify({ session_id: id })), { messageId: `${prefix}-${i}` });
  }

  return { cleanups, store, start, counter, publish };
}
