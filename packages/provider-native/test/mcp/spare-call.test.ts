import { describe, expect, it } from 'vitest';
import { FEATURE_NAMES, extractFeatures } from '../../src/mcp/system-one/features.js';
import type { MCPCallRecord, MCPInteraction } from '../../src/mcp/interaction.js';

const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: 'object' } });
const servers = [
  { name: 'tracker', tools: [tool('search_issues', 'Search issues by text'), tool('create_issue', 'Create a new issue with a title')], resources: [{ uri: 'repo://CONTRIBUTING.md', name: 'Contributing guide' }], prompts: [] },
  { name: 'chat', tools: [tool('post_message', 'Post a message to a chat channel')], resources: [], prompts: [] },
];
const call = (server: string, name: string, args: Record<string, unknown>, kind: MCPCallRecord['kind'] = 'tool'): MCPCallRecord =>
  ({ server, kind, name, arguments: args, result: { ok: true }, ...(kind === 'resource' ? { uri: name } : {}) });
const feature = (name: string, request: string, calls: MCPCallRecord[]) =>
  extractFeatures({ request, servers, calls, output: 'Opened issue 12 "Login times out".' } satisfies MCPInteraction)[FEATURE_NAMES.indexOf(name as never)];

const request = 'Open an issue titled "Login times out".';
const create = call('tracker', 'create_issue', { title: 'Login times out' });

describe('a spare call (extra_call) and a part left undone (part_left_undone)', () => {
  it('a tool call no part asks for, beside the one that serves the request, is spare', () => {
    expect(feature('extra_call', request, [create])).toBe(0);
    expect(feature('extra_call', request, [create, call('chat', 'post_message', { text: 'Opened issue 12' })])).toBe(1);
  });

  it('a resource read, or one look-up related to the request before acting, is not', () => {
    expect(feature('extra_call', request, [call('tracker', 'repo://CONTRIBUTING.md', {}, 'resource'), create])).toBe(0);
    expect(feature('extra_call', request, [call('tracker', 'search_issues', { query: 'login' }), create])).toBe(0);
  });

  it('a part of a two-part request nothing spoke of is left undone; a part of one word of its own is a detail', () => {
    const two = `${request} Then tell the chat channel about the outage in the payments region.`;
    expect(feature('part_left_undone', two, [create])).toBe(1);
    expect(feature('part_left_undone', two, [create, call('chat', 'post_message', { text: 'outage in the payments region' })])).toBe(0);
    expect(feature('part_left_undone', `${request} Use the tracker.`, [create])).toBe(0);
  });
});
