/**
 * A server killed with SIGKILL leaves its spill directory (spill-files.ts) behind; the next server to start removes it,
 * and leaves a running server's alone. With real server processes (the built packages: `npm run build` first).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MCEClient, defaultMceConfig, openStore, serveApi } from '../../src/index.js';
import { removeAbandonedSpillDirs } from '../../src/api/abandoned-spill-dirs.js';
import { spillDirOwner } from '../../src/api/spill-files.js';

const example = JSON.parse(readFileSync(new URL('../../../../examples/sessions/single-agent-tool.json', import.meta.url), 'utf8')) as object;
const dir = mkdtempSync(join(tmpdir(), 'mce-spill-test-'));
const children: ChildProcess[] = [];

/** A server process whose spill directory exists: it has read a big body (through a file, in its body reader). */
async function spillingServer(name: string): Promise<{ child: ChildProcess; spillDir: string }> {
  const child = fork(new URL('./fixtures/spilling-server.mjs', import.meta.url), [], { env: { ...process.env, SPILL_TEST_DB: join(dir, `${name}.db`) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  children.push(child);
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  const body = JSON.stringify({ ...example, id: name, userInput: 'x'.repeat(1024 * 1024) });
  const res = await fetch(`http://127.0.0.1:${port}/sessions`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  expect(res.status).toBe(201);
  const spillDirs = readdirSync(tmpdir()).filter((entry) => spillDirOwner(entry) === child.pid);
  expect(spillDirs).toHaveLength(1);
  return { child, spillDir: join(tmpdir(), spillDirs[0]!) };
}

describe('abandoned spill directories', () => {
  afterAll(async () => {
    for (const child of children.filter((c) => c.exitCode === null && c.signalCode === null)) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    // Killed, they leave their directories (the next server would remove them).
    const pids = new Set(children.map((c) => c.pid));
    for (const entry of readdirSync(tmpdir()).filter((name) => pids.has(spillDirOwner(name)))) rmSync(join(tmpdir(), entry), { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it("a SIGKILLed server's directory is removed when the next server starts; a running server's is kept", async () => {
    const killed = await spillingServer('killed');
    const running = await spillingServer('running');
    killed.child.kill('SIGKILL');
    await once(killed.child, 'exit');
    expect(existsSync(killed.spillDir)).toBe(true);

    const client = await MCEClient.open({ config: defaultMceConfig(), store: await openStore(`sqlite:${join(dir, 'next.db')}`), cache: false });
    const server = await serveApi(client, { port: 0 });
    try {
      expect(existsSync(killed.spillDir)).toBe(false);
      expect(existsSync(running.spillDir)).toBe(true);
      expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
      await client.close();
    }
  });

  it('removes only directories named for a process that is gone, never a link nor another name', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'mce-spill-parent-'));
    // A process id that no process has: past the kernel's largest (2^22).
    const gone = 4_194_304 + 1;
    for (const name of [`mce-api-${gone}-abc123`, `mce-api-${process.pid}-abc123`, 'mce-api-Ab12Cd', `mce-api-${gone}-toolong1`, `other-${gone}-abc123`]) mkdirSync(join(parent, name));
    const target = mkdtempSync(join(dir, 'target-'));
    symlinkSync(target, join(parent, `mce-api-${gone}-link00`));
    expect(await removeAbandonedSpillDirs(parent)).toEqual([`mce-api-${gone}-abc123`]);
    expect(readdirSync(parent).sort()).toEqual([`mce-api-${gone}-link00`, `mce-api-${gone}-toolong1`, `mce-api-${process.pid}-abc123`, 'mce-api-Ab12Cd', `other-${gone}-abc123`].sort());
    expect(existsSync(target)).toBe(true);
    rmSync(parent, { recursive: true, force: true });
  });
});
