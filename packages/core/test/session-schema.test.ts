import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sessionJsonSchema } from '../src/ontology/json-schema.js';

describe('published session JSON Schema', () => {
  it('the committed schema/session.schema.json is the one generated from SessionSchema (run scripts/write-schema.mjs)', () => {
    const committed = readFileSync(new URL('../schema/session.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(`${JSON.stringify(sessionJsonSchema(), null, 2)}\n`);
  });

  it('requires what the session format requires and leaves defaulted lists optional', () => {
    const schema = sessionJsonSchema() as { required: string[]; properties: Record<string, { default?: unknown }> };
    expect(schema.required).toEqual(['id', 'startTime', 'endTime']);
    expect(schema.properties.llmCalls!.default).toEqual([]);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['masCalls', 'agentCalls', 'taskCalls', 'llmCalls', 'toolCalls', 'mcpServers', 'userInput', 'finalResponse']),
    );
  });
});
