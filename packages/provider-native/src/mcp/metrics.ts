/**
 * The MCP metrics (provider `mce`), after DeepEval's MCPUseMetric, MultiTurnMCPUseMetric and
 * MCPTaskCompletionMetric: MCPUse [Session, AgentCall], MultiTurnMCPUse [Session], MCPTaskCompletion [Session].
 */
import { MCP_SPECS, type AgentCall, type Element, type MetricContext, type Session } from '@mce/core';
import { MissingJudgeInputError } from '../judge/errors.js';
import { mean } from '../metrics/deterministic/call-duration-aggregates.js';
import { coreSpec } from '../metrics/llm/define.js';
import { mcpMetric, type McpEvaluation, type McpMetric, type McpMetricDeps, type McpTarget } from './define.js';
import type { EvalMode } from './eval-mode.js';
import { agentInteraction, sessionConversation } from './from-session.js';
import { turnInteraction, wholeInteraction, type MCPConversation, type MCPInteraction } from './interaction.js';
import { describeAnswer, LABEL_OF, r3, runAll, subScoreLine, type McpJudging, type SubScore } from './sub-scores.js';
import { decisiveWeights } from './system-one/decisive-mean.js';
import { SYSTEM_ONE_QUESTIONS, type SystemOneAnswer, type SystemOneQuestion } from './system-one/types.js';

/** Levels and required inputs as the core spec catalog announces them (one source of truth). */
function spec(name: string) {
  const { levels, requirements } = coreSpec(MCP_SPECS, name);
  return { levels, requirements };
}

const USE_SUBSCORES = ['primitiveUsage', 'argumentCorrectness'] as const;

function noServer(what: string): { skipped: string } {
  return { skipped: `no MCP server is available to ${what}: there is no MCP use to judge` };
}

function requireRequest(metric: string, request: string, where: string): void {
  if (!request.trim()) throw new MissingJudgeInputError(`${metric}: ${where} has no user request to judge`);
}

function weightsText(w: Record<SystemOneQuestion, number>): string {
  return SYSTEM_ONE_QUESTIONS.map((q) => `${q} ${r3(w[q])}`).join(', ');
}

/**
 * system_one: the weighted mean of the three answers, a lower answer weighing more (decisive-mean.ts), a reason
 * listing them, and the confidence (weighted alike).
 */
function systemOneSummary(
  perQuestion: Record<SystemOneQuestion, { value: number; confidence: number }>,
  judging: McpJudging,
  model: string,
  answerLines: readonly string[],
): McpEvaluation {
  const configured = judging.options.weights;
  const values = Object.fromEntries(SYSTEM_ONE_QUESTIONS.map((q) => [q, perQuestion[q].value])) as Record<SystemOneQuestion, number>;
  const w = decisiveWeights(values, configured);
  const score = SYSTEM_ONE_QUESTIONS.reduce((s, q) => s + w[q] * perQuestion[q].value, 0);
  const confidence = SYSTEM_ONE_QUESTIONS.reduce((s, q) => s + w[q] * perQuestion[q].confidence, 0);
  return {
    score,
    lines: [
      ...(answerLines.length === 1
        ? [`System One (${model}) answered: ${answerLines[0]}.`]
        : [`System One (${model}) answered, per turn:`, ...answerLines]),
      `Score = weighted mean ${r3(score)} (weights: ${weightsText(w)}; a lower answer weighs more); confidence ${r3(confidence)}.`,
    ],
    details: {
      confidence,
      weights: configured,
      effectiveWeights: w,
      subScores: {
        primitiveUsage: perQuestion.primitives.value,
        argumentCorrectness: perQuestion.arguments.value,
        taskCompletion: perQuestion.task.value,
      },
    },
  };
}

/** Hybrid: how decisive System One was over the sub-scores it decided (absent when the LLM decided them all). */
function hybridConfidence(scores: readonly SubScore[]): { confidence?: number } {
  const decided = scores.filter((s) => s.confidence !== undefined);
  return decided.length ? { confidence: mean(decided.map((s) => s.confidence!)) } : {};
}

function answerDetails(answers: readonly SystemOneAnswer[]) {
  return answers.map((a) => ({ question: a.question, level: a.level, value: a.value, confidence: a.confidence, probabilities: a.probabilities }));
}

function subScoreDetails(s: SubScore) {
  return {
    value: s.value,
    decidedBy: s.decidedBy,
    ...(s.level !== undefined ? { level: s.level, confidence: s.confidence, probabilities: s.probabilities } : {}),
    ...(s.judgeScore !== undefined ? { judgeScore: s.judgeScore, scoring: s.scoring } : {}),
    ...(s.systemOneError ? { systemOneError: s.systemOneError } : {}),
  };
}

// ---------------------------------------------------------------- MCPUse

interface UseTarget {
  interaction: MCPInteraction;
  where: string;
}

async function evaluateUse(t: UseTarget, mode: EvalMode, judging: McpJudging): Promise<McpEvaluation> {
  if (mode === 'system_one') {
    const { answers, model } = await judging.ask(t.interaction, SYSTEM_ONE_QUESTIONS);
    const per = Object.fromEntries(answers.map((a) => [a.question, a])) as Record<SystemOneQuestion, SystemOneAnswer>;
    const text = answers.map((a) => `${a.question} — ${describeAnswer(a)}`).join('; ');
    const summary = systemOneSummary(per, judging, model, [text]);
    return { ...summary, details: { ...summary.details, answers: answerDetails(answers) } };
  }
  const [primitive, argument] = (await judging.subScores(mode, USE_SUBSCORES, t.interaction)) as [SubScore, SubScore];
  const score = Math.min(primitive.value, argument.value);
  return {
    score,
    lines: [
      subScoreLine(primitive),
      subScoreLine(argument),
      `Score = the lower of primitive usage (${r3(primitive.value)}) and argument correctness (${r3(argument.value)}) = ${r3(score)}.`,
    ],
    details: {
      ...hybridConfidence([primitive, argument]),
      subScores: { primitiveUsage: primitive.value, argumentCorrectness: argument.value },
      decisions: { primitiveUsage: subScoreDetails(primitive), argumentCorrectness: subScoreDetails(argument) },
    },
  };
}

export function createMCPUse(deps?: McpMetricDeps): McpMetric {
  return mcpMetric<UseTarget>(
    {
      name: 'MCPUse',
      ...spec('MCPUse'),
      description:
        'How well an agent used its MCP servers: were the right primitives (tools, resources, prompts) chosen and were their arguments correct; the lower of the two sub-scores.',
      target(element: Element, ctx: MetricContext): McpTarget<UseTarget> {
        if (ctx.level === 'AgentCall') {
          const agent = element as AgentCall;
          const interaction = agentInteraction(ctx.session, agent);
          if (!interaction.servers.length) return noServer(`agent ${agent.agentName}`);
          const request = interaction.request || ctx.session.userInput || '';
          return { target: { interaction: { ...interaction, request }, where: `agent ${agent.agentName}` } };
        }
        const session = element as Session;
        const conversation = sessionConversation(session);
        if (!conversation.servers.length) return noServer('this session');
        return { target: { interaction: wholeInteraction(conversation), where: 'the session' } };
      },
      check(t) {
        requireRequest('MCPUse', t.interaction.request, t.where);
      },
      evaluate: evaluateUse,
    },
    deps,
  );
}

// ---------------------------------------------------------------- per-turn metrics

interface ConversationTarget {
  conversation: MCPConversation;
}

function conversationTarget(element: Element): McpTarget<ConversationTarget> {
  const conversation = sessionConversation(element as Session);
  if (!conversation.servers.length) return noServer('this session');
  return { target: { conversation } };
}

function checkTurns(metric: string, t: ConversationTarget): void {
  t.conversation.turns.forEach((turn, k) => requireRequest(metric, turn.request, `turn ${k + 1}`));
}

/** system_one over turns: one System One request per turn; per-question means, then the weighted mean. */
async function systemOneOverTurns(conversation: MCPConversation, judging: McpJudging, questions: readonly SystemOneQuestion[]) {
  const results = await runAll(
    conversation.turns.map((_, k) => () => judging.ask(turnInteraction(conversation, k), questions, undefined, k)),
    judging.options.asyncMode,
  );
  const per = {} as Record<SystemOneQuestion, { value: number; confidence: number }>;
  for (const q of questions) {
    const answers = results.map((r) => r.answers.find((a) => a.question === q)!);
    per[q] = { value: mean(answers.map((a) => a.value)), confidence: mean(answers.map((a) => a.confidence)) };
  }
  const turnLines = results.map((r, k) => `turn ${k + 1}: ${r.answers.map((a) => `${a.question} — ${describeAnswer(a)}`).join('; ')}`);
  const turns = results.map((r, k) => ({ turn: k + 1, answers: answerDetails(r.answers) }));
  return { per, turnLines, turns, model: results[0]?.model ?? judging.options.systemOneModel };
}

async function evaluateMultiTurnUse(t: ConversationTarget, mode: EvalMode, judging: McpJudging): Promise<McpEvaluation> {
  const { conversation } = t;
  if (mode === 'system_one') {
    const { per, turnLines, turns, model } = await systemOneOverTurns(conversation, judging, SYSTEM_ONE_QUESTIONS);
    const means = `means over ${turns.length} turn(s): ${SYSTEM_ONE_QUESTIONS.map((q) => `${q} ${r3(per[q].value)}`).join(', ')}`;
    const summary = systemOneSummary(per, judging, model, [...turnLines, means]);
    return { ...summary, details: { ...summary.details, turns } };
  }
  const perTurn = await runAll(
    conversation.turns.map((_, k) => () => judging.subScores(mode, USE_SUBSCORES, turnInteraction(conversation, k), k)),
    judging.options.asyncMode,
  );
  const primitive = mean(perTurn.map((s) => s[0]!.value));
  const argument = mean(perTurn.map((s) => s[1]!.value));
  const score = Math.min(primitive, argument);
  return {
    score,
    lines: [
      ...perTurn.flatMap((s, k) => [`Turn ${k + 1}:`, ...s.map((x) => `  ${subScoreLine(x)}`)]),
      `Score = the lower of the mean primitive usage (${r3(primitive)}) and the mean argument correctness (${r3(argument)}) over ${perTurn.length} turn(s) = ${r3(score)}.`,
    ],
    details: {
      ...hybridConfidence(perTurn.flat()),
      subScores: { primitiveUsage: primitive, argumentCorrectness: argument },
      turns: perTurn.map((s, k) => ({
        turn: k + 1,
        primitiveUsage: subScoreDetails(s[0]!),
        argumentCorrectness: subScoreDetails(s[1]!),
      })),
    },
  };
}

export function createMultiTurnMCPUse(deps?: McpMetricDeps): McpMetric {
  return mcpMetric<ConversationTarget>(
    {
      name: 'MultiTurnMCPUse',
      ...spec('MultiTurnMCPUse'),
      description:
        'MCP use judged turn by turn (a user message and everything until the next one): primitive usage and argument correctness per turn; the lower of the two means.',
      target: conversationTarget,
      check: (t) => checkTurns('MultiTurnMCPUse', t),
      evaluate: evaluateMultiTurnUse,
    },
    deps,
  );
}

async function evaluateTaskCompletion(t: ConversationTarget, mode: EvalMode, judging: McpJudging): Promise<McpEvaluation> {
  const { conversation } = t;
  if (mode === 'system_one') {
    const { per, turnLines, turns, model } = await systemOneOverTurns(conversation, judging, ['task']);
    const score = per.task.value;
    return {
      score,
      lines: [`System One (${model}) answered, per turn:`, ...turnLines, `Score = mean over ${turns.length} turn(s) = ${r3(score)}; confidence ${r3(per.task.confidence)}.`],
      details: { confidence: per.task.confidence, subScores: { taskCompletion: score }, turns },
    };
  }
  const perTurn = await runAll(
    conversation.turns.map((_, k) => async () => (await judging.subScores(mode, ['taskCompletion'], turnInteraction(conversation, k), k))[0]!),
    judging.options.asyncMode,
  );
  const score = mean(perTurn.map((s) => s.value));
  return {
    score,
    lines: [
      ...perTurn.map((s, k) => `Turn ${k + 1}: ${subScoreLine(s)}`),
      `Score = mean ${LABEL_OF.taskCompletion.toLowerCase()} over ${perTurn.length} turn(s) = ${r3(score)}.`,
    ],
    details: {
      ...hybridConfidence(perTurn),
      subScores: { taskCompletion: score },
      turns: perTurn.map((s, k) => ({ turn: k + 1, taskCompletion: subScoreDetails(s) })),
    },
  };
}

export function createMCPTaskCompletion(deps?: McpMetricDeps): McpMetric {
  return mcpMetric<ConversationTarget>(
    {
      name: 'MCPTaskCompletion',
      ...spec('MCPTaskCompletion'),
      description:
        "Per turn, was the user's task completed, judged only on what the user can see; the mean over turns.",
      target: conversationTarget,
      check: (t) => checkTurns('MCPTaskCompletion', t),
      evaluate: evaluateTaskCompletion,
    },
    deps,
  );
}

/** The three MCP metrics bound to `deps` (a judge, an environment, options …). */
export function createMcpMetrics(deps?: McpMetricDeps): McpMetric[] {
  return [createMCPUse(deps), createMultiTurnMCPUse(deps), createMCPTaskCompletion(deps)];
}

/** Bound to the default judge and the process environment; what the native provider lists. */
export const MCPUse = createMCPUse();
export const MultiTurnMCPUse = createMultiTurnMCPUse();
export const MCPTaskCompletion = createMCPTaskCompletion();
export const MCP_METRICS: readonly McpMetric[] = Object.freeze([MCPUse, MultiTurnMCPUse, MCPTaskCompletion]);
