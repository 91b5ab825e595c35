/** The hand-made example sessions fit both the zod schema (via readSessions) and the published JSON Schema. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { readSessions } from '@mce/ingest';
import { summarise } from '../../../ingest/test/helpers.js';

const root = (rel: string) => fileURLToPath(new URL(`../../../../${rel}`, import.meta.url));
const schema = JSON.parse(readFileSync(root('packages/core/schema/session.schema.json'), 'utf8')) as Record<string, unknown>;
const files = readdirSync(root('examples/sessions')).filter((f) => f.endsWith('.json'));

describe('examples/sessions', () => {
  it('has the three examples', () => {
    expect(files.sort()).toEqual(['handoff-three-agents.json', 'mcp-tools.json', 'single-agent-tool.json']);
  });

  it.each(files)('%s validates against schema/session.schema.json', (f) => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const doc = JSON.parse(readFileSync(root(`examples/sessions/${f}`), 'utf8')) as unknown;
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    const fileSchema = ajv.getSchema(`${String(schema.$id)}#/$defs/SessionFile`)!;
    expect(fileSchema({ sessions: [doc] })).toBe(true);
    expect(fileSchema({ sessions: [{ id: 1 }] })).toBe(false);
  });

  it.each(files)('%s reads without a warning (no field the format does not define)', async (f) => {
    const r = await readSessions(root(`examples/sessions/${f}`));
    expect([r.sessions.length, r.warnings]).toEqual([1, []]);
  });

  it('the published schema, like the reader, accepts fields it does not define (the reader warns about them)', async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const doc = JSON.parse(readFileSync(root('examples/sessions/single-agent-tool.json'), 'utf8')) as { llmCalls: Record<string, unknown>[] };
    doc.llmCalls[0]!.startTme = 1;
    (doc as Record<string, unknown>).llmcalls = [];
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'mce-example-'));
    const p = join(dir, 'typo.json');
    writeFileSync(p, JSON.stringify(doc));
    const r = await readSessions(p);
    expect([r.sessions.length, r.warnings.map((w) => w.path)]).toEqual([1, ['llmCalls[0].startTme', 'llmcalls']]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('single-agent-tool.json', async () => {
    const [s] = (await readSessions(root('examples/sessions/single-agent-tool.json'))).sessions;
    expect(summarise(s!)).toEqual({
      counts: { MASCall: 1, AgentCall: 1, TaskCall: 0, LLMCall: 2, ToolCall: 1 },
      tokens: { input: 662, output: 33, cacheRead: 0, total: 695 },
      agents: ['weather_agent'],
      transitions: [],
      tools: ['get_weather'],
      llmAgents: ['weather_agent', 'weather_agent'],
      toolAgents: ['weather_agent'],
      errors: [],
    });
  });

  it('handoff-three-agents.json', async () => {
    const [s] = (await readSessions(root('examples/sessions/handoff-three-agents.json'))).sessions;
    expect(summarise(s!)).toEqual({
      counts: { MASCall: 1, AgentCall: 3, TaskCall: 0, LLMCall: 4, ToolCall: 2 },
      tokens: { input: 8140, output: 136, cacheRead: 6656, total: 8276 },
      agents: ['router', 'billing', 'escalation'],
      transitions: ['router -> billing', 'billing -> escalation'],
      tools: ['lookup_order', 'issue_refund'],
      llmAgents: ['router', 'billing', 'billing', 'escalation'],
      toolAgents: ['billing', 'billing'],
      errors: ['execute_tool issue_refund', 'billing'],
    });
    expect(s!.llmCalls[1]!.usage.cacheWriteTokens).toBe(256);
  });

  it('mcp-tools.json', async () => {
    const [s] = (await readSessions(root('examples/sessions/mcp-tools.json'))).sessions;
    expect(s!.toolCalls.map((t) => [t.toolName, t.mcp?.kind])).toEqual([
      ['search_issues', 'tool'],
      ['create_issue', 'tool'],
      ['repo://CONTRIBUTING.md', 'resource'],
    ]);
    expect(s!.mcpServers[0]!.tools.map((t) => t.name)).toEqual(['search_issues', 'create_issue', 'close_issue']);
    expect(s!.mcpServers[0]!.prompts[0]!.name).toBe('triage_issue');
  });
});

describe('listInputFiles', () => {
  it('expands the examples directory to its trace and session files, sorted', async () => {
    const { listInputFiles } = await import('@mce/ingest');
    const files = await listInputFiles([root('examples')]);
    expect(files.map((f) => f.slice(root('examples').length))).toEqual([
      '/sessions/handoff-three-agents.json',
      '/sessions/mcp-tools.json',
      '/sessions/single-agent-tool.json',
      '/traces/multi-agent.jsonl',
    ]);
    await expect(listInputFiles([root('examples/none.json')])).rejects.toThrow(/cannot read/);
  });
});
