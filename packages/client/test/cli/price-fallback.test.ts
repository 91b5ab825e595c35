import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionComputation } from '@mce/core';
import { runCli, tempWorkspace } from './run-cli.js';

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } });

/** One trace of chat spans, each with its model and token counts. */
function trace(models: readonly string[]): string {
  const spans = models.map((model, i) => ({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: `b7ad6b71692033${String(i).padStart(2, '0')}`,
    name: `chat ${model}`,
    kind: 'SPAN_KIND_CLIENT',
    startTimeUnixNano: String(1764576000000000000 + i * 1e9),
    endTimeUnixNano: String(1764576000500000000 + i * 1e9),
    attributes: [str('gen_ai.operation.name', 'chat'), str('gen_ai.request.model', model), int('gen_ai.usage.input_tokens', 1000), int('gen_ai.usage.output_tokens', 100)],
  }));
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [str('service.name', 'pricing')] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] });
}

describe('mce compute: calls priced like gpt-4o', () => {
  it('says so once on stderr, naming the models and call counts, and --json carries it', async () => {
    const ws = tempWorkspace();
    const file = join(ws.dir, 'trace.json');
    writeFileSync(file, trace(['acme-private-7b', 'gpt-4o-mini', 'acme-private-7b', 'in-house-13b']));
    const run = await runCli(['compute', '--input', file, '--metrics', 'Cost', '--json', '--no-store'], ws);
    expect(run.code).toBe(0);
    const message = "3 LLM call(s) priced like gpt-4o: no price for 'acme-private-7b' (2 calls), 'in-house-13b' (1 call); their Cost is an estimate at gpt-4o's price";
    expect(run.stderr.split('\n').filter((l) => l.includes('priced like gpt-4o'))).toEqual([`warning: ${message}`]);
    const out = run.json<{ sessions: SessionComputation[]; warnings: unknown[] }>();
    expect(out.warnings).toEqual([{ code: 'price-fallback', message, models: { 'acme-private-7b': 2, 'in-house-13b': 1 } }]);
    const session = out.sessions[0]!.results.find((r) => r.name === 'Cost' && r.level === 'Session')!;
    // 2 × (1000·2.5e-6 + 100·1e-5) + 1 × the same + gpt-4o-mini's 1000·1.5e-7 + 100·6e-7.
    expect(session.result).toBeCloseTo(3 * 0.0035 + 0.00021, 12);
  });

  it('warns about nothing when every model has a price', async () => {
    const ws = tempWorkspace();
    const file = join(ws.dir, 'trace.json');
    writeFileSync(file, trace(['gpt-4o-mini', 'mistral/mistral-small-latest']));
    const run = await runCli(['compute', '--input', file, '--metrics', 'Cost', '--json', '--no-store'], ws);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/priced like gpt-4o/);
    expect(Object.keys(run.json<object>())).toEqual(['sessions']);
  });
});
