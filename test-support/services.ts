/**
 * Real services for tests. A suite that needs PostgreSQL or RabbitMQ asks `needService(...)`: when the service does
 * not answer the suite is skipped with a visible message, except under CI=true where that is a failure.
 */
import net from 'node:net';

export const PG_URL = process.env.MCE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const AMQP_URL = process.env.MCE_TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

function portOpen(host: string, port: number, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** true when the service answers; false (after a visible warning) when it does not; throws under CI=true. */
export async function needService(name: 'postgres' | 'rabbitmq'): Promise<boolean> {
  const url = new URL(name === 'postgres' ? PG_URL : AMQP_URL);
  const port = Number(url.port || (name === 'postgres' ? 5432 : 5672));
  const up = await portOpen(url.hostname, port);
  if (up) return true;
  const message = `${name} is not reachable at ${url.hostname}:${port}: its tests are skipped`;
  if (process.env.CI === 'true') throw new Error(`${message} (not allowed under CI=true)`);
  console.warn(`\n⚠ SKIPPED: ${message}\n`);
  return false;
}
