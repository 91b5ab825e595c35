/**
 * The tokenizer, loaded on first use: its encoding tables cost ~50 MB of memory, which every process that imports
 * the package (CLI, worker threads, deterministic-only runs) would otherwise pay without judging anything.
 */
import { createRequire } from 'node:module';

type Tokenizer = typeof import('gpt-tokenizer');

const require = createRequire(import.meta.url);
let loaded: Tokenizer | undefined;

export function tokenizer(): Tokenizer {
  loaded ??= require('gpt-tokenizer') as Tokenizer;
  return loaded;
}
