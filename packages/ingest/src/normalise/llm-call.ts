/** Step 5, LLM calls: what an LLM span says, and what its merged inner spans add (nested.ts). */
import type { LLMCall } from '@mce/core';
import { inputMessages, outputMessages, stringField, toolDefinitions } from '../dialects/index.js';
import { requestModelOf, responseModelOf } from '../model-name.js';
import { foldInnerLlm } from '../nested.js';
import { finishReasonsOf, statusOf, usageOf } from './span-facts.js';
import { set, type Context, type Node } from './node.js';

/** Fills `c` (its base fields set) from the span of `n` and the spans merged into it. */
export function fillLlmCall(c: LLMCall, n: Node, inner: readonly Node[], ctx: Context): LLMCall {
  const s = n.span;
  c.operation = n.cls.operation ?? 'chat';
  set(c, 'requestModel', requestModelOf(s));
  set(c, 'responseModel', responseModelOf(s));
  set(c, 'provider', stringField(s, 'provider'));
  c.usage = usageOf(s, ctx.badCount(s));
  c.inputMessages = inputMessages(s);
  c.outputMessages = outputMessages(s);
  c.finishReasons = finishReasonsOf(s);
  c.toolDefinitions = toolDefinitions(s);
  // Nested spans of the same call fill what the outer span did not record (nested.ts: the store folds the calls of
  // two parts by the same rule).
  for (const x of inner) {
    const is = x.span;
    foldInnerLlm(c, {
      requestModel: requestModelOf(is),
      responseModel: responseModelOf(is),
      provider: stringField(is, 'provider'),
      usage: usageOf(is, ctx.badCount(is)),
      inputMessages: () => inputMessages(is),
      outputMessages: () => outputMessages(is),
      finishReasons: () => finishReasonsOf(is),
      toolDefinitions: () => toolDefinitions(is),
      ...statusOf(is),
    });
  }
  return c;
}
