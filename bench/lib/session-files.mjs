// Synthetic sessions as JSON Lines files under bench/.out (cached between runs), so a benchmark can read its input
// the way mce reads a file — and its memory figures are not inflated by the generator's garbage.
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SYNTHETIC_VERSION, syntheticSession } from './synthetic.mjs';

export const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '.out');

/** Path of the file holding `count` sessions of `spans` spans (seed 42, indices from `firstIndex`), created if missing. */
export async function syntheticSessionsFile(count, spans, firstIndex = 0) {
  const path = join(OUT_DIR, `sessions-v${SYNTHETIC_VERSION}-${count}x${spans}-from${firstIndex}.jsonl`);
  if (existsSync(path)) return path;
  mkdirSync(OUT_DIR, { recursive: true });
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  for (let i = 0; i < count; i++) {
    if (!out.write(`${JSON.stringify(syntheticSession(spans, firstIndex + i))}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(partial, path);
  return path;
}

/** Every session of a JSON Lines file, parsed, and the file's size in bytes. */
export async function readSessionsFile(path) {
  const sessions = [];
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) if (line) sessions.push(JSON.parse(line));
  return { sessions, bytes: statSync(path).size };
}
