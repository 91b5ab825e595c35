/**
 * The project's own MCP example (examples/sessions/mcp-tools.json: search the tracker for an open issue, none, so
 * open one), and the same session degraded one thing at a time as issue 28 describes, in system_one mode with the
 * calibrated local model: each degradation costs MCPTaskCompletion at least 0.3, and MCPUse at least the issue's
 * 0.3 and nearly what was measured (floors: a change that narrows a gap fails). The first model gave 0.68 to the
 * good session and 0.61 to the one without a call.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SessionSchema, isSkip, type MetricValue, type Session, type ToolCall } from '@mce/core';
import { createMCPTaskCompletion, createMCPUse, type McpMetric } from '@mce/provider-native';
import { contextFor } from '../support/session-builder.js';

const example = SessionSchema.parse(
  JSON.parse(readFileSync(new URL('../../../../examples/sessions/mcp-tools.json', import.meta.url), 'utf8')),
) as Session;
const REPLY = example.finalResponse!;

/** The session with other MCP calls and another final reply (in the last LLM call and finalResponse). */
function degraded(toolCalls: (calls: ToolCall[]) => ToolCall[], reply = REPLY): Session {
  const s = structuredClone(example);
  s.toolCalls = toolCalls(s.toolCalls);
  for (const l of s.llmCalls) for (const m of l.outputMessages) if (m.content === REPLY) m.content = reply;
  s.finalResponse = reply;
  return s;
}
const createCall = (calls: ToolCall[]) => calls.find((c) => c.toolName === 'create_issue')!;
const withCreate = (calls: ToolCall[], change: Partial<ToolCall>) => calls.map((c) => (c === createCall(calls) ? { ...c, ...change } : c));

/** Each degradation with the least it must cost MCPUse (measured 2026-12-04 on the broader training split: 0.912, 0.814, 0.886, 0.835; before it 0.865, 0.789, 0.823, 0.793). */
const DEGRADED: Record<string, [Session, number]> = {
  'invalid arguments (the title left out, the call rejected)': [degraded(
    (calls) => withCreate(calls, { arguments: { body: 'Users are logged out after 30 s of inactivity.' }, result: undefined, status: 'error', error: { message: 'Invalid arguments: "title" is required' } }),
    "Sorry, I couldn't open the issue: the tracker rejected the request.",
  ), 0.85],
  'the wrong tool (close_issue for opening one)': [degraded(
    (calls) => withCreate(calls, { toolName: 'close_issue', name: 'tools/call close_issue', arguments: { number: 411 }, result: { closed: true } }),
  ), 0.75],
  'no MCP call at all': [degraded(() => []), 0.8],
  'an unrelated issue opened, success claimed': [degraded(
    (calls) => withCreate(calls, { arguments: { title: 'Update README badges', body: 'The CI badge points at the old pipeline.' } }),
  ), 0.75],
};

const deps = { env: {}, persistedEvalMode: () => undefined };
async function value(metric: McpMetric, session: Session): Promise<number> {
  const out = await metric.compute(session, contextFor(session, 'Session', undefined, { eval_mode: 'system_one' }));
  if (isSkip(out)) throw new Error(out.skipped);
  return (out as MetricValue).value;
}

describe('the project MCP example under system_one', () => {
  const use = createMCPUse(deps);
  const task = createMCPTaskCompletion(deps);
  it('the good session scores above the threshold on both metrics (MCPUse 0.94, MCPTaskCompletion 0.88)', async () => {
    expect(await value(use, example)).toBeGreaterThan(0.9);
    expect(await value(task, example)).toBeGreaterThan(0.85);
  });
  for (const [what, [session, useGap]] of Object.entries(DEGRADED))
    it(`${what}: MCPTaskCompletion at least 0.3 lower, MCPUse at least ${useGap}`, async () => {
      expect((await value(task, example)) - (await value(task, session))).toBeGreaterThanOrEqual(0.3);
      expect((await value(use, example)) - (await value(use, session))).toBeGreaterThanOrEqual(useGap);
    });
});
