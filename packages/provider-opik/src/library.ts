/**
 * The opik package and the Vercel AI SDK's OpenAI provider, loaded at the first computation (large; most commands
 * never compute an Opik metric). Opik's metrics are built with `trackMetric: false`, so nothing is sent to an Opik
 * server; its logger, which would print a library error mce already reports as the failed result, is silenced
 * unless OPIK_LOG_LEVEL is set.
 */
import { createRequire } from 'node:module';
import type * as Opik from 'opik';
import type * as AiSdkOpenAI from '@ai-sdk/openai';

const require = createRequire(import.meta.url);
let loaded: { opik: typeof Opik; aiSdk: typeof AiSdkOpenAI } | undefined;

export function opikLibrary(): { opik: typeof Opik; aiSdk: typeof AiSdkOpenAI } {
  if (!loaded) {
    const opik = require('opik') as typeof Opik;
    if (process.env.OPIK_LOG_LEVEL === undefined) opik.disableLogger();
    loaded = { opik, aiSdk: require('@ai-sdk/openai') as typeof AiSdkOpenAI };
  }
  return loaded;
}
