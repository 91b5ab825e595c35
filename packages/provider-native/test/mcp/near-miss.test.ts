import { describe, expect, it } from 'vitest';
import { contextWords, nearMiss, withinOneEdit } from '../../src/mcp/system-one/near-miss.js';
import { FEATURE_NAMES, extractFeatures } from '../../src/mcp/system-one/features.js';
import type { MCPInteraction } from '../../src/mcp/interaction.js';

describe('near-miss argument values', () => {
  it('one insertion, deletion or substitution, no more', () => {
    expect(withinOneEdit('invoice', 'invoices')).toBe(true);
    expect(withinOneEdit('000600', '000500')).toBe(true);
    expect(withinOneEdit('react', 'raect')).toBe(false);
    expect(withinOneEdit('stage', 'staging')).toBe(false);
    expect(withinOneEdit('same', 'same')).toBe(true);
  });

  it('an identifier a small step from the user\'s words is a near miss; their words joined into one is not', () => {
    const words = contextWords('list the invoices of the ziglang org for lifetime spend on staging, thread 1712000000.000500');
    expect(nearMiss('invoice', words)).toBe(true); // a plural dropped
    expect(nearMiss('zig-lang', words)).toBe(true); // a separator added
    expect(nearMiss('.env.stage', words)).toBe(true); // a base form for the -ing form
    expect(nearMiss('1712000000.000600', words)).toBe(true); // one digit off
    expect(nearMiss('lifetime_spend', words)).toBe(false); // how identifiers are made from words
    expect(nearMiss('kubernetes', words)).toBe(false); // another value altogether: ungrounded, not near
  });

  it('in free text only a separator or a digit counts (plurals vary freely in a query)', () => {
    const words = contextWords('find repositories about vector databases in the ziglang org');
    expect(nearMiss('database', words, true)).toBe(false);
    expect(nearMiss('zig-lang', words, true)).toBe(true);
  });

  it('the feature: fires for `invoice` where the user wrote `invoices`, not for the value as written', () => {
    const servers = [{ name: 'billing', tools: [{ name: 'list_records', description: 'List the records of a table', inputSchema: { type: 'object', properties: { table: { type: 'string' } } } }], resources: [], prompts: [] }];
    const at = FEATURE_NAMES.indexOf('near_miss_value');
    const turn = (table: string): MCPInteraction => ({
      request: 'List the records of the invoices table.',
      servers,
      calls: [{ server: 'billing', kind: 'tool', name: 'list_records', arguments: { table }, result: [{ id: 1 }] }],
      output: 'One record: id 1.',
    });
    expect(extractFeatures(turn('invoice'))[at]).toBe(1);
    expect(extractFeatures(turn('invoices'))[at]).toBe(0);
  });
});
