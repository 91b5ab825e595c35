/** `system_one_model` option → a System One model: `local` (shared instance) or `endpoint:<model>`. */
import { Judge } from '../../judge/judge.js';
import { EndpointSystemOne } from './endpoint.js';
import { LocalSystemOne } from './local.js';
import type { SystemOneModel } from './types.js';

let local: LocalSystemOne | undefined;

export function localSystemOne(): LocalSystemOne {
  local ??= new LocalSystemOne();
  return local;
}

/**
 * The model named by `id`; an endpoint model talks to the judge's endpoint (same key, base URL, limits) with its own
 * model name. Judges are cached per model so the log-probability support learnt for an endpoint is kept.
 */
export function systemOneModelFor(id: string, baseJudge: () => Judge): SystemOneModel {
  if (id === 'local') return localSystemOne();
  const match = /^endpoint:(.+)$/.exec(id);
  if (!match?.[1]) throw new Error(`system_one_model ${JSON.stringify(id)}: expected "local" or "endpoint:<model>"`);
  const model = match[1];
  let judge: Judge | undefined;
  return new EndpointSystemOne(model, () => {
    judge ??= new Judge({ ...baseJudge().config, model });
    return judge;
  });
}
