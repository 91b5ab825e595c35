/** `system_one_model` option → a System One model: `jev-latest` / `local` (one shared instance) or `endpoint:<model>`. */
import type { Judge } from '../../judge/judge.js';
import { EndpointSystemOne } from './endpoint.js';
import { LocalSystemOne } from './local.js';
import { LOCAL_SYSTEM_ONE_NAMES, SYSTEM_ONE_MODEL_HINT } from '../options.js';
import type { SystemOneModel } from './types.js';

let local: LocalSystemOne | undefined;

export function localSystemOne(): LocalSystemOne {
  local ??= new LocalSystemOne();
  return local;
}

/**
 * The model named by `id`; an endpoint model talks to the judge's endpoint (same key, base URL, limits, pricing)
 * with its own model name, through the judge's `withModel` (one derived judge per model, so its client is reused).
 */
export function systemOneModelFor(id: string, baseJudge: () => Judge): SystemOneModel {
  if (LOCAL_SYSTEM_ONE_NAMES.includes(id)) return localSystemOne();
  const match = /^endpoint:(.+)$/.exec(id);
  if (!match?.[1]) throw new Error(`system_one_model ${JSON.stringify(id)}: ${SYSTEM_ONE_MODEL_HINT}`);
  const model = match[1];
  return new EndpointSystemOne(model, () => baseJudge().withModel(model));
}
