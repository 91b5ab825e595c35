/**
 * The openai package, loaded at first use: importing it costs a command about 0.3 s of start-up, and most commands
 * (metric list, deterministic computes, ingestion) never call a judge. Loaded once, synchronously (it ships CommonJS
 * too), and only from here, so the client and the error classes its checks use are one copy of the package.
 */
import { createRequire } from 'node:module';
import type * as OpenAIModule from 'openai';

const require = createRequire(import.meta.url);
let loaded: typeof OpenAIModule | undefined;

export function openaiModule(): typeof OpenAIModule {
  loaded ??= require('openai') as typeof OpenAIModule;
  return loaded;
}
