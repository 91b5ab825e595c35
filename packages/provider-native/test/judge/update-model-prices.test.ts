import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/update-model-prices.mjs', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mce-prices-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const SOURCE = {
  sample_spec: { mode: 'chat', input_cost_per_token: 0, output_cost_per_token: 0 },
  'gpt-4o': { mode: 'chat', litellm_provider: 'openai', input_cost_per_token: 2.5e-6, output_cost_per_token: 1e-5, supports_vision: true },
  'gpt-3.5-turbo-instruct': { mode: 'completion', litellm_provider: 'text-completion-openai', input_cost_per_token: 1.5e-6, output_cost_per_token: 2e-6 },
  'text-embedding-3-small': { mode: 'embedding', litellm_provider: 'openai', input_cost_per_token: 2e-8 },
  'dall-e-3': { mode: 'image_generation', litellm_provider: 'openai', output_cost_per_pixel: 0 },
  'whisper-1': { mode: 'audio_transcription', litellm_provider: 'openai', input_cost_per_second: 1e-4 },
  'no-price-chat': { mode: 'chat', litellm_provider: 'openai' },
  'bedrock/some-model': { mode: 'chat', litellm_provider: 'bedrock', input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 },
};

async function script(args: string[]) {
  return run(process.execPath, [SCRIPT, ...args]).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe('update-model-prices script', () => {
  it('keeps chat, completion and embedding models with token prices, of the providers asked', async () => {
    const from = path.join(dir, 'source.json');
    const out = path.join(dir, 'out.json');
    fs.writeFileSync(from, JSON.stringify(SOURCE));
    const result = await script(['--from', from, '--out', out, '--providers', 'openai,text-completion-openai']);
    expect(result.code).toBe(0);
    const written = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(['gpt-3.5-turbo-instruct', 'gpt-4o', 'text-embedding-3-small']);
    expect(written['gpt-4o']).toEqual(SOURCE['gpt-4o']);
    const all = await script(['--from', from, '--out', out, '--all-providers']);
    expect(all.code).toBe(0);
    expect(Object.keys(JSON.parse(fs.readFileSync(out, 'utf8')) as object)).toContain('bedrock/some-model');
  });

  it('leaves the output untouched when the source is invalid', async () => {
    const from = path.join(dir, 'bad.json');
    const out = path.join(dir, 'kept.json');
    fs.writeFileSync(out, '{"kept":true}');
    fs.writeFileSync(from, JSON.stringify({ 'claude-x': SOURCE['gpt-4o'] })); // no gpt-4o fallback entry
    const result = await script(['--from', from, '--out', out, '--all-providers']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no usable gpt-4o entry.*the committed copy is unchanged/);
    expect(fs.readFileSync(out, 'utf8')).toBe('{"kept":true}');
  });
});

/** A LiteLLM-like server on loopback: each path answers one way. */
async function priceServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (request.url === '/good.json') response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SOURCE));
    else if (request.url === '/no-prices.json') response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ 'dall-e-3': SOURCE['dall-e-3'] }));
    else if (request.url === '/not-json.json') response.writeHead(200, { 'content-type': 'application/json' }).end('<html>rate limited</html>');
    else response.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A port nothing listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('update-model-prices --keep-on-failure (the release build)', () => {
  const KEPT = '{"gpt-4o":{"mode":"chat","litellm_provider":"openai","input_cost_per_token":1,"output_cost_per_token":2}}\n';

  it('writes a good table downloaded over HTTP, with the providers of the copy in place', async () => {
    const server = await priceServer();
    try {
      const out = path.join(dir, 'download-good.json');
      fs.writeFileSync(out, KEPT);
      const result = await script(['--from', `${server.url}/good.json`, '--out', out, '--keep-on-failure']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`wrote 2 models (1 chat, 1 embedding) from ${server.url}/good.json`);
      const written = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>;
      expect(Object.keys(written)).toEqual(['gpt-4o', 'text-embedding-3-small']);
      expect(written['gpt-4o']).toEqual(SOURCE['gpt-4o']);
    } finally {
      await server.close();
    }
  });

  it('keeps the copy in place, exit 0 and a warning naming the cause, for a bad table or a failing server', async () => {
    const server = await priceServer();
    try {
      const cases: Array<[string, RegExp]> = [
        ['/no-prices.json', /no entry with a per-token price/],
        ['/not-json.json', /not valid JSON|Unexpected token/],
        ['/down.json', /HTTP 503/],
      ];
      for (const [name, cause] of cases) {
        const out = path.join(dir, `download${name.replace('/', '-')}`);
        fs.writeFileSync(out, KEPT);
        const result = await script(['--from', `${server.url}${name}`, '--out', out, '--keep-on-failure']);
        expect([name, result.code]).toEqual([name, 0]);
        expect(result.stderr).toMatch(cause);
        expect(result.stderr).toContain('the committed copy is unchanged (--keep-on-failure: shipping it)');
        expect(fs.readFileSync(out, 'utf8')).toBe(KEPT);
      }
      // Without the flag the same failure is an error (the hand-run update).
      const strict = await script(['--from', `${server.url}/no-prices.json`, '--out', path.join(dir, 'strict.json'), '--all-providers']);
      expect(strict.code).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('keeps the copy in place when the source cannot be reached', async () => {
    const port = await closedPort();
    const out = path.join(dir, 'download-unreachable.json');
    fs.writeFileSync(out, KEPT);
    const result = await script(['--from', `http://127.0.0.1:${port}/model_prices.json`, '--out', out, '--keep-on-failure']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}/model_prices\\.json: fetch failed \\(.*ECONNREFUSED`));
    expect(fs.readFileSync(out, 'utf8')).toBe(KEPT);
  });
});
