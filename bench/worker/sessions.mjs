// Deterministic synthetic sessions for the worker benchmark: about 50 spans each (1 MAS call, 3 agent calls,
// 6 task calls, 20 LLM calls, 20 tool calls), with token usage, errors and agent hand-offs for the metrics to chew on.

import { prng } from '../lib/synthetic.mjs';

const AGENTS = ['planner', 'researcher', 'writer'];
const TOOLS = ['search', 'fetch', 'calculator', 'read_file'];
const MODELS = ['gpt-4o', 'gpt-4o-mini'];

/** The id of the `index`th synthetic session, without generating it. */
export function sessionId(index) {
  return `bench-session-${String(index).padStart(5, '0')}`;
}

export function syntheticSession(index, spansPerAgent = { llm: 7, tool: 7, task: 2 }) {
  const random = prng(index + 1);
  const id = sessionId(index);
  const t0 = 1_700_000_000_000 + index * 60_000;
  const masId = `${id}-m0`;
  const session = {
    kind: 'Session',
    id,
    startTime: t0,
    endTime: t0,
    serviceName: 'bench-service',
    appName: 'bench-app',
    traceIds: [`trace-${index}`],
    userInput: `question ${index}`,
    finalResponse: `answer ${index}`,
    masCalls: [],
    agentCalls: [],
    taskCalls: [],
    llmCalls: [],
    toolCalls: [],
    mcpServers: [],
  };
  let clock = t0;
  let llmLeft = 20;
  let toolLeft = 20;
  let taskLeft = 6;
  AGENTS.forEach((agentName, a) => {
    const agentId = `${id}-a${a}`;
    const agentStart = clock;
    const last = a === AGENTS.length - 1;
    const llms = last ? llmLeft : spansPerAgent.llm;
    const tools = last ? toolLeft : spansPerAgent.tool;
    const tasks = last ? taskLeft : spansPerAgent.task;
    llmLeft -= llms;
    toolLeft -= tools;
    taskLeft -= tasks;
    for (let k = 0; k < tasks; k++) {
      const start = clock + k;
      session.taskCalls.push({ kind: 'TaskCall', id: `${agentId}-k${k}`, parentId: agentId, masCallId: masId, agentCallId: agentId, name: `task ${k}`, taskName: `step-${k}`, startTime: start, endTime: start + 5, status: 'ok' });
    }
    for (let k = 0; k < Math.max(llms, tools); k++) {
      if (k < llms) {
        const duration = 200 + Math.floor(random() * 1800);
        const inputTokens = 100 + Math.floor(random() * 900);
        const outputTokens = 20 + Math.floor(random() * 300);
        const model = MODELS[Math.floor(random() * MODELS.length)];
        session.llmCalls.push({
          kind: 'LLMCall', id: `${agentId}-l${k}`, parentId: agentId, masCallId: masId, agentCallId: agentId,
          name: `chat ${model}`, startTime: clock, endTime: clock + duration, status: random() < 0.05 ? 'error' : 'ok',
          operation: 'chat', requestModel: model, responseModel: model, provider: 'openai',
          usage: { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: inputTokens + outputTokens },
          inputMessages: [{ role: 'user', content: `step ${k} of ${agentName}` }],
          outputMessages: [{ role: 'assistant', content: `done ${k}` }],
          finishReasons: ['stop'], toolDefinitions: [],
        });
        clock += duration;
      }
      if (k < tools) {
        const duration = 20 + Math.floor(random() * 400);
        const toolName = TOOLS[Math.floor(random() * TOOLS.length)];
        session.toolCalls.push({
          kind: 'ToolCall', id: `${agentId}-t${k}`, parentId: agentId, masCallId: masId, agentCallId: agentId,
          name: `execute_tool ${toolName}`, startTime: clock, endTime: clock + duration, status: random() < 0.1 ? 'error' : 'ok',
          toolName, arguments: { q: `${k}` }, result: { ok: true },
        });
        clock += duration;
      }
    }
    session.agentCalls.push({ kind: 'AgentCall', id: agentId, parentId: masId, masCallId: masId, name: `invoke_agent ${agentName}`, agentName, startTime: agentStart, endTime: clock, status: 'ok' });
  });
  session.masCalls.push({ kind: 'MASCall', id: masId, name: 'workflow', workflowName: 'bench', startTime: t0, endTime: clock, status: 'ok' });
  session.endTime = clock;
  return session;
}
