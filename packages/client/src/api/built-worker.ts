/**
 * The compiled module of a worker thread: beside this module once built; from the sources (under tests) the built
 * one in dist. Without a build there is none, and the work is done in place.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function builtWorker(name: string): URL | undefined {
  for (const candidate of [new URL(`./${name}.js`, import.meta.url), new URL(`../../dist/api/${name}.js`, import.meta.url)]) {
    if (existsSync(fileURLToPath(candidate))) return candidate;
  }
  return undefined;
}
