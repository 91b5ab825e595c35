// Synthetic MAS sessions for benchmarks: deterministic (seeded), realistic in shape — one MAS call, several agent
// calls in sequence (with repeated hand-offs, so cycles and transitions exist), task calls, LLM calls with models,
// usage and messages, tool calls (some failing, some MCP) — and scalable from a few spans to hundreds of thousands.

/** mulberry32: a small seeded PRNG, so every run benchmarks the same sessions. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const AGENTS = ['planner', 'researcher', 'coder', 'reviewer', 'writer', 'critic'];
const TOOLS = ['web_search', 'read_file', 'run_tests', 'query_db', 'send_email', 'calculator'];
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet-20241022', 'gemini-1.5-pro', 'in-house-model-v2'];
const WORDS =
  'the agent plans a search then reads the results and writes a short answer with sources while checking each step for errors and cost'.split(
    ' ',
  );

function sentence(rand, words) {
  let out = '';
  for (let i = 0; i < words; i++) out += (i ? ' ' : '') + WORDS[Math.floor(rand() * WORDS.length)];
  return out;
}

function hex(rand, digits) {
  let out = '';
  for (let i = 0; i < digits; i++) out += Math.floor(rand() * 16).toString(16);
  return out;
}

/** How many elements of each class a session of `spans` spans has (≈ 4 % agents, 8 % tasks, 50 % LLM, rest tools). */
export function composition(spans) {
  if (spans < 5) throw new Error('a synthetic session needs at least 5 spans');
  const agents = Math.max(2, Math.round(spans * 0.04));
  const tasks = Math.max(1, Math.round(spans * 0.08));
  const llm = Math.max(1, Math.round(spans * 0.5));
  const tools = spans - 1 - agents - tasks - llm;
  if (tools < 1) throw new Error(`cannot split ${spans} spans`);
  return { mas: 1, agents, tasks, llm, tools };
}

/**
 * One session of exactly `spans` elements (MAS + agent + task + LLM + tool calls) in the ontology's shape.
 * `index` and `seed` make it unique and reproducible.
 */
export function syntheticSession(spans, index = 0, seed = 42) {
  const rand = prng(seed * 1_000_003 + index);
  const c = composition(spans);
  const id = `session-${seed}-${index}`;
  const traceId = hex(rand, 32);
  const t0 = 1_767_225_600_000 + index * 3_600_000;
  const masId = hex(rand, 16);
  const base = (spanId, parentId, name, start, end, agentCallId) => ({
    id: spanId,
    traceId,
    parentId,
    masCallId: masId,
    ...(agentCallId ? { agentCallId } : {}),
    name,
    startTime: start,
    endTime: end,
    status: 'ok',
  });

  // Each agent call gets an equal share of the children, laid out back to back in time.
  const perAgent = (n, a) => Math.floor(n / c.agents) + (a < n % c.agents ? 1 : 0);
  const agentCalls = [];
  const taskCalls = [];
  const llmCalls = [];
  const toolCalls = [];
  let clock = t0;
  const userInput = `Please ${sentence(rand, 12)}`;
  for (let a = 0; a < c.agents; a++) {
    // Hand-offs revisit agents (planner → researcher → planner …), which gives cycles and repeated transitions.
    const agentName = AGENTS[(a % 3 === 2 ? a - 2 : a) % AGENTS.length];
    const agentId = hex(rand, 16);
    const agentStart = clock;
    const tasks = perAgent(c.tasks, a);
    const llms = perAgent(c.llm, a);
    const tools = perAgent(c.tools, a);
    const steps = Math.max(llms, tools);
    let taskIndex = 0;
    let currentTask;
    for (let s = 0; s < steps; s++) {
      if (taskIndex < tasks && s % Math.max(1, Math.ceil(steps / tasks)) === 0) {
        currentTask = hex(rand, 16);
        taskCalls.push({
          ...base(currentTask, agentId, `${agentName}.task`, clock, clock, agentId),
          kind: 'TaskCall',
          taskName: `step-${taskIndex++}`,
        });
      }
      const parent = currentTask ?? agentId;
      if (s < llms) {
        const duration = 200 + rand() * 3000;
        const inputTokens = 200 + Math.floor(rand() * 4000);
        const outputTokens = 20 + Math.floor(rand() * 600);
        const cacheReadTokens = rand() < 0.3 ? Math.floor(inputTokens * 0.5) : 0;
        const model = MODELS[Math.floor(rand() * MODELS.length)];
        const failed = rand() < 0.02;
        const toolName = TOOLS[Math.floor(rand() * TOOLS.length)];
        llmCalls.push({
          ...base(hex(rand, 16), parent, `chat ${model}`, clock, clock + duration, agentId),
          ...(failed ? { status: 'error', error: { type: 'RateLimitError', message: 'rate limited' } } : {}),
          kind: 'LLMCall',
          operation: 'chat',
          requestModel: model,
          responseModel: model,
          provider: model.startsWith('claude') ? 'anthropic' : model.startsWith('gemini') ? 'google' : 'openai',
          usage: {
            inputTokens,
            outputTokens,
            cacheReadTokens,
            cacheWriteTokens: 0,
            reasoningTokens: 0,
            totalTokens: inputTokens + outputTokens,
          },
          inputMessages: [
            { role: 'system', content: `You are the ${agentName}. ${sentence(rand, 10)}` },
            { role: 'user', content: s === 0 ? userInput : sentence(rand, 14) },
          ],
          outputMessages: [
            {
              role: 'assistant',
              content: sentence(rand, 18),
              ...(s < tools ? { toolCalls: [{ id: `call_${hex(rand, 8)}`, name: toolName, arguments: { q: sentence(rand, 3) } }] } : {}),
            },
          ],
          finishReasons: [s < tools ? 'tool_calls' : 'stop'],
          toolDefinitions: [],
        });
        clock += duration;
      }
      if (s < tools) {
        const duration = 5 + rand() * 800;
        const toolName = TOOLS[Math.floor(rand() * TOOLS.length)];
        const failed = rand() < 0.05;
        const mcp = rand() < 0.25;
        toolCalls.push({
          ...base(hex(rand, 16), parent, `execute_tool ${toolName}`, clock, clock + duration, agentId),
          ...(failed ? { status: 'error', error: { type: 'ToolError', message: `${toolName} failed` } } : {}),
          kind: 'ToolCall',
          toolName,
          toolCallId: `call_${hex(rand, 8)}`,
          arguments: { q: sentence(rand, 4) },
          result: failed ? undefined : sentence(rand, 12),
          ...(mcp ? { mcp: { server: 'tools-server', kind: 'tool', method: 'tools/call' } } : {}),
        });
        clock += duration;
      }
      if (currentTask) taskCalls[taskCalls.length - 1].endTime = clock;
    }
    agentCalls.push({
      ...base(agentId, masId, `invoke_agent ${agentName}`, agentStart, clock, undefined),
      kind: 'AgentCall',
      agentName,
      userInput: a === 0 ? userInput : undefined,
      finalResponse: sentence(rand, 10),
    });
    clock += 1;
  }
  const finalResponse = sentence(rand, 20);
  return {
    kind: 'Session',
    id,
    startTime: t0,
    endTime: clock,
    serviceName: 'bench-mas',
    traceIds: [traceId],
    userInput,
    finalResponse,
    masCalls: [
      { ...base(masId, undefined, 'invoke_workflow research', t0, clock), masCallId: undefined, kind: 'MASCall', workflowName: 'research', userInput, finalResponse },
    ],
    agentCalls,
    taskCalls,
    llmCalls,
    toolCalls,
    mcpServers: [{ name: 'tools-server', transport: 'stdio', tools: TOOLS.map((name) => ({ name })), resources: [], prompts: [] }],
  };
}

/**
 * Number of elements below the session (what a "span" counts here): @mce/client's elementCount, repeated because the
 * engine benchmark's phase processes must not load @mce/client — its ≈ 27 MB of modules would count in their peak RSS.
 */
export function spanCount(session) {
  return session.masCalls.length + session.agentCalls.length + session.taskCalls.length + session.llmCalls.length + session.toolCalls.length;
}

/** Bumped whenever the generator's output changes, so cached files are regenerated. */
export const SYNTHETIC_VERSION = 1;
