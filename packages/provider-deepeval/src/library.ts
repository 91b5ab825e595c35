/**
 * The deepeval package, loaded at the first computation (it is large, and most commands never compute a DeepEval
 * metric). Its telemetry (PostHog, Sentry, an OTLP exporter) is opted out before it loads unless the user asks for
 * it with MCE_DEEPEVAL_TELEMETRY=true; DEEPEVAL_TELEMETRY_OPT_OUT set by the user is left as it is.
 */
import { createRequire } from 'node:module';
import type * as DeepEval from 'deepeval';

const require = createRequire(import.meta.url);
let loaded: typeof DeepEval | undefined;

/** True unless the user turned DeepEval's telemetry on (MCE_DEEPEVAL_TELEMETRY=true). */
export function telemetryDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !['1', 'true', 'yes', 'on'].includes((env.MCE_DEEPEVAL_TELEMETRY ?? '').trim().toLowerCase());
}

export function deepeval(): typeof DeepEval {
  if (!loaded) {
    if (telemetryDisabled() && process.env.DEEPEVAL_TELEMETRY_OPT_OUT === undefined) process.env.DEEPEVAL_TELEMETRY_OPT_OUT = '1';
    loaded = require('deepeval') as typeof DeepEval;
  }
  return loaded;
}
