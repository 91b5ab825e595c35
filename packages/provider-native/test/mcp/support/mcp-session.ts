/**
 * A two-turn weather session with an MCP server, for the MCP metric tests:
 *   turn 1 "What is the forecast for Lisbon for 3 days?" → get_forecast {city: Lisbon, days: 3}
 *   turn 2 "And the air quality there?"                  → get_air_quality {city: Lisbon}
 */
import type { AgentCall, LLMCall, MCPServer, Message, Session, ToolCall } from '@mce/core';

export const TURN1 = 'What is the forecast for Lisbon for 3 days?';
export const TURN2 = 'And the air quality there?';
export const REPLY1 = 'Lisbon: sunny, 21°C for the next 3 days.';
export const REPLY2 = 'The air quality in Lisbon is good (AQI 30).';

export const WEATHER_SERVER: MCPServer = {
  name: 'weather',
  transport: 'stdio',
  tools: [
    {
      name: 'get_forecast',
      description: 'Weather forecast for a city for the coming days.',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 10 } },
        required: ['city'],
      },
    },
    {
      name: 'get_air_quality',
      description: 'Air quality index and pollution levels for a city.',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
  resources: [],
  prompts: [],
};

const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 0 };

function llm(id: string, start: number, input: Message[], output: Message[]): LLMCall {
  return {
    kind: 'LLMCall', id, name: 'chat', agentCallId: 'agent-1', startTime: start, endTime: start + 5, status: 'ok',
    operation: 'chat', usage, inputMessages: input, outputMessages: output, finishReasons: ['stop'], toolDefinitions: [],
  };
}

function tool(id: string, start: number, name: string, args: unknown, result: unknown, error?: string): ToolCall {
  return {
    kind: 'ToolCall', id, name: `tools/call ${name}`, agentCallId: 'agent-1', startTime: start, endTime: start + 5,
    status: error ? 'error' : 'ok', ...(error ? { error: { message: error } } : {}), toolName: name,
    arguments: args, result, mcp: { server: 'weather', kind: 'tool', method: 'tools/call' },
  };
}

export interface WeatherOptions {
  servers?: MCPServer[];
  /** Arguments of the first call (default {city: Lisbon, days: 3}). */
  forecastArgs?: unknown;
  forecastError?: string;
  agentServers?: MCPServer[];
}

export function weatherSession(o: WeatherOptions = {}): Session {
  const system: Message = { role: 'system', content: 'You are a weather assistant.' };
  const u1: Message = { role: 'user', content: TURN1 };
  const u2: Message = { role: 'user', content: TURN2 };
  const a1: Message = { role: 'assistant', content: REPLY1 };
  const askForecast: Message = { role: 'assistant', content: '', toolCalls: [{ name: 'get_forecast' }] };
  const askAir: Message = { role: 'assistant', content: '', toolCalls: [{ name: 'get_air_quality' }] };
  const agent: AgentCall = {
    kind: 'AgentCall', id: 'agent-1', name: 'invoke_agent forecaster', agentName: 'forecaster', startTime: 0,
    endTime: 200, status: 'ok', userInput: TURN1, finalResponse: REPLY2,
    ...(o.agentServers ? { mcpServers: o.agentServers } : {}),
  };
  return {
    kind: 'Session', id: 'mcp-weather', startTime: 0, endTime: 200, traceIds: ['t1'], userInput: TURN1,
    finalResponse: REPLY2, masCalls: [], agentCalls: [agent], taskCalls: [],
    llmCalls: [
      llm('l1', 10, [system, u1], [askForecast]),
      llm('l2', 30, [system, u1, askForecast], [a1]),
      llm('l3', 100, [system, u1, a1, u2], [askAir]),
      llm('l4', 120, [system, u1, a1, u2, askAir], [{ role: 'assistant', content: REPLY2 }]),
    ],
    toolCalls: [
      tool('c1', 20, 'get_forecast', o.forecastArgs ?? { city: 'Lisbon', days: 3 }, { days: [{ high: 21, sky: 'sunny' }] }, o.forecastError),
      tool('c2', 110, 'get_air_quality', { city: 'Lisbon' }, { aqi: 30, level: 'good' }),
    ],
    mcpServers: o.servers ?? [WEATHER_SERVER],
  };
}
