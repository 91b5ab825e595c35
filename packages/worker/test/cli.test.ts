/** `mce-worker` start-up: bad configuration exits 2 with the reason, as `mce` does (no broker needed to get there). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../src/cli.js';

describe('mce-worker configuration errors', () => {
  afterEach(() => vi.restoreAllMocks());

  it('exits 2 naming a bad variable, and a bad metric of the config file with its line', async () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
    const dir = mkdtempSync(join(tmpdir(), 'mce-worker-cli-'));
    const env = { PATH: process.env.PATH, MCE_STORE_URL: `sqlite:${join(dir, 'kg.db')}`, MCE_METRIC_CACHE: 'false', MCE_CONFIG_HOME: dir };
    expect(await main([], { ...env, MCE_EVAL_MODE: 'bogus' })).toBe(2);
    expect(stderr.join('')).toContain('mce-worker: environment variable MCE_EVAL_MODE: "bogus" is not one of llm, hybrid, system_one');
    const config = join(dir, 'mce_config.yaml');
    writeFileSync(config, 'metrics:\n  Session: [NoSuchMetric]\n');
    stderr.length = 0;
    expect(await main(['--config', config], env)).toBe(2);
    expect(stderr.join('')).toContain(`${config}:2: metrics.Session: Unknown metric "NoSuchMetric" selected at Session`);
    // The seed's spelling names the same file; two different files are refused.
    stderr.length = 0;
    expect(await main(['--worker-config', config], env)).toBe(2);
    expect(stderr.join('')).toContain(`${config}:2: metrics.Session: Unknown metric "NoSuchMetric" selected at Session`);
    stderr.length = 0;
    expect(await main(['--config', config, '--worker-config', join(dir, 'other.yaml')], env)).toBe(2);
    expect(stderr.join('')).toMatch(/^mce-worker: --config and --worker-config name different files; give one\n/);
  });

  it('exits 2 naming the variable of a malformed broker URL, its password hidden (it was "URI malformed", exit 1)', async () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
    const dir = mkdtempSync(join(tmpdir(), 'mce-worker-cli-'));
    const env = { PATH: process.env.PATH, MCE_STORE_URL: `sqlite:${join(dir, 'kg.db')}`, MCE_METRIC_CACHE: 'false', MCE_CONFIG_HOME: dir };
    expect(await main([], { ...env, MCE_AMQP_URL: 'amqp://guest:50%off@127.0.0.1:5672' })).toBe(2);
    expect(stderr.join('')).toBe('mce-worker: invalid worker configuration: MCE_AMQP_URL amqp://guest:***@127.0.0.1:5672: the password is not percent-encoded (a % must be written %25)\n');
  });

  it('exits 2 naming an unknown log level, from the option or the variable', async () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
    expect(await main(['--log-level', 'verbose'], { PATH: process.env.PATH })).toBe(2);
    expect(stderr.join('')).toMatch(/^mce-worker: --log-level verbose: .*\(use fatal, error, warn, info, debug, trace or silent\)\n$/);
    stderr.length = 0;
    expect(await main([], { PATH: process.env.PATH, MCE_LOG_LEVEL: 'loud' })).toBe(2);
    expect(stderr.join('')).toMatch(/^mce-worker: MCE_LOG_LEVEL loud: /);
  });
});
