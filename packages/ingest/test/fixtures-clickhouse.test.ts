/**
 * The four real ClickHouse `otel_traces` exports. Every expected value below was checked by hand against the file
 * (python over the raw rows: span names and kinds, `gen_ai.usage.*` sums, `agent_id`s in time order, the first
 * `gen_ai.prompt.N` user message, the last non-JSON `gen_ai.completion.0.content`).
 */
import { describe, expect, it } from 'vitest';
import { readSessions } from '../src/index.js';
import { fixture, summarise } from './helpers.js';

const read = async (f: string) => {
  const r = await readSessions(fixture(`clickhouse-otel-traces/${f}`));
  expect(r.warnings).toEqual([]);
  expect(r.sessions).toHaveLength(1);
  return r.sessions[0]!;
};

describe('ClickHouse fixtures', () => {
  it('langgraph_supervisor_research.json: supervisor → research → supervisor, agents found by checkpoint namespace', async () => {
    const s = await read('langgraph_supervisor_research.json');
    expect(s.id).toBe('multi-agent-service_bd219a36-f37c-4749-a24e-2eef6fd61606'); // execution.id
    expect(s.traceIds).toHaveLength(5);
    expect(s.serviceName).toBe('multi-agent-service');
    expect(summarise(s)).toEqual({
      counts: { MASCall: 1, AgentCall: 3, TaskCall: 19, LLMCall: 4, ToolCall: 1 },
      tokens: { input: 978, output: 89, cacheRead: 0, total: 1067 },
      agents: ['supervisor', 'research', 'supervisor'],
      transitions: ['supervisor -> research', 'research -> supervisor'],
      tools: ['tavily_search_results_json'],
      llmAgents: ['supervisor', 'research', 'research', 'supervisor'],
      toolAgents: ['research'],
      errors: [],
    });
    // The agent spans are trace roots, not ancestors of the LLM spans: attribution went through the namespace.
    const research = s.agentCalls[1]!;
    const llm = s.llmCalls[1]!;
    expect(research.parentId).toBeUndefined();
    expect(llm.parentId).not.toBe(research.id);
    expect(llm.agentCallId).toBe(research.id);
    expect(s.userInput).toBe('who was the 31st president of the united states?');
    expect(s.finalResponse).toBe(
      'The 31st President of the United States was Herbert Hoover. He served from 1929 to 1933. You can find more information about him on [Wikipedia](https://en.wikipedia.org/wiki/Herbert_Hoover).',
    );
    // The supervisor only routes (Router tool calls): it has a user input but no final response.
    expect(s.agentCalls[0]!.userInput).toBe('who was the 31st president of the united states?');
    expect(s.agentCalls[0]!.finalResponse).toBeUndefined();
    expect(research.finalResponse).toBe(s.finalResponse);
    expect(s.masCalls[0]!.name).toBe('LangGraph.workflow');
    expect(s.masCalls[0]!.finalResponse).toBe(s.finalResponse);
    const tool = s.toolCalls[0]!;
    expect(tool.arguments).toEqual({ query: '31st president of the United States' });
    expect(tool.toolCallId).toBe('call_jSclnYQG3SLJNFx3brPQajQA');
    expect(Array.isArray(tool.result)).toBe(true);
    expect(tool.definition?.name).toBe('tavily_search_results_json');
    expect(s.llmCalls[0]!.outputMessages[0]!.toolCalls).toEqual([{ id: 'call_qztJ00N6M1WUC6EtFeiBn08C', name: 'Router', arguments: { next: 'researcher' } }]);
    expect(s.llmCalls.map((c) => c.requestModel)).toEqual(['gpt-3.5-turbo', 'gpt-3.5-turbo', 'gpt-3.5-turbo', 'gpt-3.5-turbo']);
  });

  it('langgraph_llamaindex_linear_5_agents.json: five agents in a line, 13 tools', async () => {
    const s = await read('langgraph_llamaindex_linear_5_agents.json');
    expect(s.id).toBe('POIROT-LINEAR-MAS-DEBUG-GRAPH-FIELD_5db130b0-4c77-40e7-a989-709cc13e31a8'); // session.id
    expect(s.traceIds).toHaveLength(7);
    const sel = 'website_selector_agent';
    const exp = 'website_expert_agent';
    const doc = 'documentation_agent';
    expect(summarise(s)).toEqual({
      // 78 `*.task` spans + 4 LlamaIndex `*.workflow` spans nested in documentation_agent.
      counts: { MASCall: 1, AgentCall: 5, TaskCall: 82, LLMCall: 9, ToolCall: 13 },
      tokens: { input: 15153, output: 755, cacheRead: 0, total: 15908 },
      agents: [sel, exp, doc, 'reasoning_agent', 'add_final_answer'],
      transitions: [`${sel} -> ${exp}`, `${exp} -> ${doc}`, `${doc} -> reasoning_agent`, 'reasoning_agent -> add_final_answer'],
      tools: [
        ...Array(5).fill('search_serper'),
        ...Array(5).fill('extract_website'),
        ...Array(3).fill('documentation_search'),
      ],
      llmAgents: [sel, sel, exp, exp, doc, doc, doc, doc, 'reasoning_agent'],
      toolAgents: [...Array(5).fill(sel), ...Array(5).fill(exp), ...Array(3).fill(doc)],
      errors: [],
    });
    expect(s.userInput?.startsWith('\nBelow you find a question. \nReturn a list of links to websites that, ')).toBe(true);
    expect(s.userInput).toHaveLength(789);
    expect(s.finalResponse?.startsWith('The fish species popularized by the movie "Finding Nemo,"')).toBe(true);
    expect(s.finalResponse?.endsWith('Therefore, the answer is:\n\n**34683**')).toBe(true);
    expect(s.finalResponse).toHaveLength(314);
    const docAgent = s.agentCalls[2]!;
    const inner = s.taskCalls.filter((t) => t.name.endsWith('.workflow'));
    expect(inner.map((t) => t.taskName)).toEqual(['SentenceSplitter.workflow', 'RetrieverQueryEngine.workflow', 'RetrieverQueryEngine.workflow', 'RetrieverQueryEngine.workflow']);
    expect(inner.every((t) => t.parentId === docAgent.id && t.agentCallId === docAgent.id)).toBe(true);
    expect(s.toolCalls.every((t) => t.definition !== undefined)).toBe(true);
    expect(s.toolCalls.every((t) => t.toolCallId?.startsWith('call_'))).toBe(true);
    // Each tool call answers the request with its own arguments (the ToolMessage's tool_call_id says which): two
    // parallel extract_website calls started in the other order than the model asked for them.
    const requested = new Map(
      s.llmCalls.flatMap((c) => c.outputMessages.flatMap((m) => (m.toolCalls ?? []).map((tc) => [tc.id, JSON.stringify(tc.arguments)] as const))),
    );
    for (const t of s.toolCalls) expect(requested.get(t.toolCallId!), t.id).toBe(JSON.stringify(t.arguments));
    expect(s.toolCalls.find((t) => t.id === 'bd1fd08d6bf3e364')?.toolCallId).toBe('call_qrmWsYF4Pe7TpEXIyGxn6UUq');
  });

  it('autogen_langgraph_moderator.json: the moderator\'s methods are one agent; web-surfer LLM calls have no agent span', async () => {
    const s = await read('autogen_langgraph_moderator.json');
    expect(s.id).toBe('noa-moderator_4d798de1-e517-49f9-9a77-9f86a314d6b7');
    expect(s.traceIds).toHaveLength(28);
    // ioa_observe records each method of the ModeratorAgent object (`init_run`, `invoke`) as an agent span with
    // agent_id `moderator-agent.<method>`: three runs of the one agent `moderator-agent`, no transition between them.
    const inv = 'moderator-agent';
    expect(s.agentCalls.map((a) => a.name)).toEqual(['moderator-agent.init_run.agent', 'moderator-agent.invoke.agent', 'moderator-agent.invoke.agent']);
    expect(summarise(s)).toEqual({
      // No top-level workflow span: one implicit MAS call per trace holding an agent or LLM call (3 + 5).
      counts: { MASCall: 8, AgentCall: 3, TaskCall: 6, LLMCall: 7, ToolCall: 0 },
      tokens: { input: 28963, output: 270, cacheRead: 1280, total: 29233 },
      agents: [inv, inv, inv],
      transitions: [],
      tools: [],
      llmAgents: [inv, null, null, null, null, null, inv],
      toolAgents: [],
      errors: [],
    });
    expect(s.masCalls.every((m) => m.id === m.traceId)).toBe(true);
    expect(s.userInput?.startsWith('\nAgent list:\n- noa-web-surfer-assistant: An assistant which can perfor')).toBe(true);
    expect(s.userInput).toHaveLength(487);
    // A multimodal prompt written as a JSON list of parts: its text, without the screenshot's base64.
    const surfer = s.llmCalls.find((c) => c.id === 'b05c0f04e8854056')!;
    const user = surfer.inputMessages.find((m) => m.role === 'user' && m.content !== '')!;
    expect(user.content.startsWith('[')).toBe(false);
    expect(user.content).not.toContain('base64');
    expect(s.masCalls.every((m) => !(m.userInput ?? '').includes('image_url'))).toBe(true);
    // The moderator's last reply is a JSON hand-off envelope, so the answer is the web surfer's.
    expect(s.finalResponse).toBe('The current time in Paris is 5:40 PM on Tuesday, August 5, 2025.');
    expect(s.agentCalls[2]!.finalResponse).toBeUndefined();
    expect(s.llmCalls[1]!.toolDefinitions).toHaveLength(9);
  });

  it('langgraph_single_agent_tool.json: object {session id → rows}; no agent span', async () => {
    const s = await read('langgraph_single_agent_tool.json');
    expect(s.id).toBe('outshift_langgraph_app_0ef9ae3d-bbe0-4e6a-861a-6d9d22dd0f09');
    expect(s.traceIds).toHaveLength(2);
    expect(summarise(s)).toEqual({
      counts: { MASCall: 1, AgentCall: 0, TaskCall: 5, LLMCall: 2, ToolCall: 1 },
      tokens: { input: 373, output: 42, cacheRead: 0, total: 415 },
      agents: [],
      transitions: [],
      tools: ['uniform_distribution_number_generation'],
      llmAgents: [null, null],
      toolAgents: [null],
      errors: [],
    });
    expect(s.userInput).toBe('Could you generate a random number between 2 and 3?');
    expect(s.finalResponse).toBe('The random number generated between 2 and 3 is approximately 2.995.');
    const tool = s.toolCalls[0]!;
    expect(tool.arguments).toEqual({ lower_bound: 2, upper_bound: 3 });
    expect(tool.result).toBe('2.994778659771288');
    expect(tool.toolCallId).toBe('call_PDW7UPtDEilm4aNQAGTWSPY9');
    expect(tool.definition?.name).toBe('uniform_distribution_number_generation');
    // The tool span is a root of its own trace; its MAS call is the workflow whose window holds it.
    expect(tool.masCallId).toBe(s.masCalls[0]!.id);
    expect(s.llmCalls[0]!.toolDefinitions.map((d) => d.name)).toEqual(expect.arrayContaining(['uniform_distribution_number_generation']));
    // Times: Timestamp (µs precision here) plus Duration (ns), as computed by hand from the rows.
    const ms = (c: { startTime: number; endTime: number }) => [c.startTime, c.endTime].map((t) => Math.round(t * 1000) / 1000);
    expect(ms(s)).toEqual([1753097483675.906, 1753097487259.636]); // the workflow span's start and end
    expect(s.llmCalls.map(ms)).toEqual([
      [1753097483699.93, 1753097485536.889],
      [1753097485559.693, 1753097487256.895],
    ]);
    expect(ms(tool)).toEqual([1753097485539.387, 1753097485539.737]); // 350,000 ns
  });
});
