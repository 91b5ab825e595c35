/** MCP calls beyond `mcp.*`-only spans: FastMCP client/server spans and Claude Agent SDK `mcp__<server>__<tool>` tools. */
import { describe, expect, it } from 'vitest';
import type { Session } from '@mce/core';
import { agentInteraction } from '@mce/provider-native';
import { readSessions } from '../src/index.js';
import { fixture } from './helpers.js';

async function only(name: string): Promise<Session> {
  const { sessions } = await readSessions([fixture(`frameworks/${name}`)], {});
  expect(sessions).toHaveLength(1);
  return sessions[0]!;
}

describe('FastMCP (its client and server spans, PrefectHQ/fastmcp telemetry tests)', () => {
  it('a client span with its server span inside is one MCP call, named by the server span', async () => {
    const s = await only('fastmcp.otlp.json');
    expect(s.toolCalls.map((t) => [t.toolName, t.mcp, t.status])).toEqual([
      ['add', { kind: 'tool', method: 'tools/call', server: 'test-server' }, 'unset'],
      ['data://config', { kind: 'resource', method: 'resources/read', server: 'test-server', uri: 'data://config' }, 'unset'],
      ['welcome', { kind: 'prompt', method: 'prompts/get', server: 'test-server' }, 'unset'],
      // The server span's error (the tool raised) is the call's.
      ['failing_tool', { kind: 'tool', method: 'tools/call', server: 'test-server' }, 'error'],
    ]);
    // The calls are the client spans'.
    expect(s.toolCalls.map((t) => t.id)).toEqual(['0000000000000c02', '0000000000000c04', '0000000000000c06', '0000000000000c08']);
    expect(s.mcpServers).toEqual([
      { name: 'test-server', tools: [{ name: 'add' }, { name: 'failing_tool' }], resources: [{ uri: 'data://config' }], prompts: [{ name: 'welcome' }] },
    ]);
    const interaction = agentInteraction(s, s.agentCalls[0]!);
    expect(interaction.calls.map((c) => [c.server, c.kind, c.name, c.error ?? null])).toEqual([
      ['test-server', 'tool', 'add', null],
      ['test-server', 'resource', 'data://config', null],
      ['test-server', 'prompt', 'welcome', null],
      ['test-server', 'tool', 'failing_tool', 'ValueError'],
    ]);
  });
});

describe('Claude Agent SDK (MCP tools named mcp__<server>__<tool>)', () => {
  it('an mcp__weather__get_forecast tool span is the MCP call get_forecast on server weather; Bash is no MCP call', async () => {
    const s = await only('claude-agent-sdk-mcp.otlp.json');
    const [forecast, bash] = s.toolCalls;
    expect(forecast).toMatchObject({
      toolName: 'get_forecast',
      mcp: { kind: 'tool', method: 'tools/call', server: 'weather' },
      // The model asked for it under its prefixed name: the request's id and the offered definition are found by it.
      toolCallId: 'toolu_01',
      arguments: { city: 'Lyon' },
      definition: { name: 'get_forecast', description: 'Forecast for a city' },
    });
    expect(bash).toMatchObject({ toolName: 'Bash', toolCallId: 'toolu_02' });
    expect(bash!.mcp).toBeUndefined();
    expect(s.mcpServers.map((m) => [m.name, m.tools.map((t) => t.name)])).toEqual([['weather', ['get_forecast']]]);
    expect(agentInteraction(s, s.agentCalls[0]!).calls).toEqual([
      { server: 'weather', kind: 'tool', name: 'get_forecast', arguments: { city: 'Lyon' }, result: 'Rain, 12 C' },
    ]);
  });
});

describe('langchain-mcp-adapters (MCP tools as LangChain tools, traced by OpenLLMetry)', () => {
  it('a tool run whose metadata is an MCP tool\'s annotations is an MCP call; a plain LangChain tool is not', async () => {
    const s = await only('langchain-mcp-adapters.otlp.json');
    expect(s.toolCalls.map((t) => [t.toolName, t.mcp ?? null])).toEqual([
      ['get_forecast', { kind: 'tool', method: 'tools/call' }],
      ['word_count', null],
    ]);
    expect(s.toolCalls[0]).toMatchObject({ arguments: { city: 'Lyon' }, toolCallId: 'call_m1' });
  });
});
