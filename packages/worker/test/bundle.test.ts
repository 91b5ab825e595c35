/**
 * The `mce-worker` command as users start it (bin/mce-worker.js) runs the bundled worker (scripts/bundle-cli.mjs,
 * rebuilt before the tests when stale): mce's own code comes from the bundle only, and the bundled worker starts,
 * consumes its queue in RabbitMQ and stops on SIGTERM. Each run records the files its process loaded.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleRecorder, ownFiles, recordSync, repo } from '../../client/test/cli/module-recorder.js';
import { AMQP_URL, needService } from '../../../test-support/services.js';
import { openStore } from '@mce/client';
import { Broker, uniqueQueue } from './support/amqp.js';

const bin = join(repo, 'packages/worker/bin/mce-worker.js');
const recorder = moduleRecorder(bin);
afterAll(() => rmSync(recorder.dir, { recursive: true, force: true }));

/** mce's code files it loaded that are neither the bin nor the worker's bundle. */
const outsideBundle = (loaded: string[]) => ownFiles(loaded).filter((f) => f !== 'packages/worker/bin/mce-worker.js' && !f.startsWith('packages/worker/dist/bundle/'));

let rabbit = false;
beforeAll(async () => {
  rabbit = await needService('rabbitmq');
});

describe('the bundled mce-worker command', () => {
  it('is built, and the bin runs it', () => {
    expect(existsSync(join(repo, 'packages/worker/dist/bundle/main.js'))).toBe(true);
    const help = recordSync(recorder, ['--help']);
    expect([help.status, help.stdout.split('\n')[0]]).toEqual([0, expect.stringMatching(/^usage: mce-worker /)]);
    expect(outsideBundle(help.loaded)).toEqual([]);
  });

  it('starts from the bundle, consumes its queue, and stops cleanly on SIGTERM', async (ctx) => {
    if (!rabbit) return ctx.skip();
    const { args, env, log } = recorder.argvOf([]);
    const queue = uniqueQueue('bundle');
    const broker = new Broker();
    ctx.onTestFinished(async () => {
      await broker.deleteQueues(queue);
      await broker.close();
    });
    // A store ingested into before (a worker over none waits for one: worker-store-missing.test.ts).
    await (await openStore(env.MCE_STORE_URL!)).close();
    const child = spawn(process.execPath, args, { cwd: recorder.dir, env: { ...env, MCE_AMQP_URL: AMQP_URL, MCE_WORKER_QUEUE: queue } });
    ctx.onTestFinished(() => void (child.exitCode === null && child.kill('SIGKILL')));
    let output = '';
    const started = new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('"msg":"worker started"')) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await Promise.race([started, exited]);
    expect(output).toContain(`"queue":"${queue}"`);
    child.kill('SIGTERM');
    expect(await exited, output).toBe(0);
    const loaded = recorder.read(log);
    expect(outsideBundle(loaded)).toEqual([]);
    expect(loaded.some((f) => f.startsWith('node_modules/rabbitmq-client/'))).toBe(true);
  });
});
