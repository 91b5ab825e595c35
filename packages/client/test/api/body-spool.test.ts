/** A request body spooled as it streams: its chunks kept and joined once while few, written to a file from a size on. */
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spoolBody } from '../../src/api/body-spool.js';
import { chunkedBody } from '../../../../test-support/chunked-body.js';


describe('spoolBody', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mce-spool-'));
  let next = 0;
  const path = async () => join(dir, `body-${next++}`);
  const bytes = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 7) % 251);

  it('keeps a body under the file size in memory, its chunks joined once, exactly', async () => {
    const kept = (await spoolBody(chunkedBody(bytes, 999), { fileFrom: 20_000, path })) as { bytes: Uint8Array };
    expect(new Uint8Array(kept.bytes)).toEqual(bytes);
    expect(await spoolBody(null, { fileFrom: 20_000, path })).toEqual({ bytes: new Uint8Array(0) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes a body from the file size on to a file, exactly, the chunks kept so far first', async () => {
    const spooled = await spoolBody(chunkedBody(bytes, 999), { fileFrom: 2500, path });
    expect(spooled).toEqual({ file: expect.any(String), byteLength: 10_000 });
    const { file } = spooled as { file: string };
    expect(new Uint8Array(readFileSync(file))).toEqual(bytes);
  });

  it('removes its file when the body fails midway, or when its inspection refuses a chunk', async () => {
    const before = readdirSync(dir).length;
    await expect(spoolBody(chunkedBody(bytes, 999, 6000), { fileFrom: 2500, path })).rejects.toThrow('the client went away');
    const seen: number[] = [];
    const inspect = (_chunk: Uint8Array, total: number) => {
      seen.push(total);
      if (total > 8000) throw new Error('too many');
    };
    await expect(spoolBody(chunkedBody(bytes, 999), { fileFrom: 2500, path, inspect })).rejects.toThrow('too many');
    expect(seen.at(-1)).toBe(8991);
    expect(readdirSync(dir).length).toBe(before);
    expect(existsSync(join(dir, `body-${next - 1}`))).toBe(false);
  });
});
