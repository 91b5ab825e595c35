/**
 * The graceful stop: stop consuming, process the messages already received (at once, without waiting for a full
 * batch), ack them, close. Messages that arrive after that are requeued for the next consumer (see MceWorker).
 */
import type { BrokerLink } from './broker.js';
import type { QueueConsumer } from './consumer.js';
import type { WorkerContext } from './context.js';
import type { BatchGatherer } from './gather.js';
import type { MessageMover } from './moves.js';

export interface StopParts {
  context: WorkerContext;
  broker: BrokerLink;
  consumer: QueueConsumer;
  gatherer: BatchGatherer;
  mover: MessageMover;
}

export async function stopGracefully({ context, broker, consumer, gatherer, mover }: StopParts): Promise<void> {
  const { log, stopping, repeats } = context;
  log.info({ pendingMessages: gatherer.waiting, inFlightBatches: gatherer.inFlight.size }, 'stopping: finishing in-flight batches');
  stopping.draining = true;
  mover.endWaits();
  gatherer.dispatch();
  if (broker.connected) {
    await consumer.close();
    await Promise.allSettled([...gatherer.inFlight]);
    await broker.publisher.close();
    await broker.connection.close();
  } else {
    // Broker unreachable: nothing can be acked (the broker redelivers), and waiting for a channel would only stall
    // until the acquire timeout. Let running batches end, close the connection first, then the rest.
    await Promise.allSettled([...gatherer.inFlight]);
    await broker.connection.close();
    await consumer.close();
    await broker.publisher.close();
  }
  broker.connectionLog.close();
  repeats.flush();
  log.info('stopped');
}
