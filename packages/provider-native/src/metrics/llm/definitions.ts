/**
 * The LLM-judged native metrics: each a written 1–5 rubric and the prompt showing the judge the element's inputs.
 * Bump `promptVersion` when a rubric or a prompt changes (the record/replay cache keys on it).
 */
import { LLM_JUDGED_SPECS, type AgentCall, type ToolCall } from '@mce/core';
import { show } from '../../judge/transcript.js';
import { coreSpec, type JudgedMetricDefinition } from './define.js';
import { answeredWithToolCallsOnly } from '../../tool-calls-only.js';
import {
  type JudgedElement,
  conversationOf,
  describeElement,
  requireConversation,
  requireText,
  responseOf,
  sections,
  toolOutputOf,
  userInputOf,
} from './inputs.js';

/** Name, levels, description and required inputs as the core spec catalog announces them (one source of truth). */
function announced(name: string): Pick<JudgedMetricDefinition, 'name' | 'levels' | 'description' | 'requirements'> {
  const { levels, description, requirements } = coreSpec(LLM_JUDGED_SPECS, name);
  return { name, levels, description, requirements };
}

function rubric(goal: string, levels: [string, string, string, string, string]): string {
  return [`Criterion: ${goal}`, '', 'Rubric:', ...levels.map((text, i) => `${5 - i}: ${text}`)].join('\n');
}

/**
 * Input, response and the conversation: the common prompt of the answer-level metrics. `conversation`: left out,
 * shown when there is one, or required (a response cannot be grounded in context that is not there).
 */
function answerPrompt(metric: string, target: JudgedElement, budget: number, conversation: 'none' | 'optional' | 'required'): string {
  const input = requireText(userInputOf(target), metric, 'user input', target);
  const response = requireText(responseOf(target), metric, 'response', target);
  const transcript =
    conversation === 'required' ? requireConversation(target, metric, budget) : conversation === 'optional' ? conversationOf(target, budget) : undefined;
  return sections([
    ['Judged', describeElement(target)],
    ['User input', input],
    ['Conversation and tool results', transcript && transcript.totalEntries > 0 ? transcript.text : undefined],
    ['Response to judge', response],
  ]);
}

/** The whole conversation (required), plus the user input and final response when known. */
function conversationPrompt(metric: string, target: JudgedElement, budget: number): string {
  const conversation = requireConversation(target, metric, budget);
  return sections([
    ['Judged', describeElement(target)],
    ['User input', userInputOf(target)],
    ['Conversation (messages, tool calls and results, in order)', conversation.text],
    ['Final response', responseOf(target)],
  ]);
}

/** Agents and tools of the scope, then the conversation: for the workflow-level metrics. */
function workflowPrompt(metric: string, target: JudgedElement, budget: number): string {
  const conversation = requireConversation(target, metric, budget);
  const { session, element, level } = target;
  const agents = (level === 'Session' ? session.agentCalls : session.agentCalls.filter((a) => a.agentCallId === element.id))
    .map((a: AgentCall) => `- ${a.agentName} (${a.id})${a.status === 'error' ? ' [error]' : ''}`)
    .join('\n');
  return sections([
    ['Judged', describeElement(target)],
    ['User input', userInputOf(target)],
    ['Agents involved', agents || undefined],
    ['Conversation (messages, tool calls and results, in order)', conversation.text],
    ['Final response', responseOf(target)],
  ]);
}

export const ANSWER_RELEVANCY: JudgedMetricDefinition = {
  ...announced('AnswerRelevancy'),
  promptVersion: 1,
  rubric: rubric('Is the response relevant to the user input: does it address what was asked, without drifting?', [
    'Fully relevant: directly addresses every part of the request, nothing off-topic.',
    'Relevant: addresses the request; minor digressions or a small part left implicit.',
    'Partly relevant: addresses some of the request but misses or drifts from a significant part.',
    'Mostly irrelevant: touches the topic but does not answer what was asked.',
    'Irrelevant: unrelated to the request, or a refusal/non-answer without reason.',
  ]),
  prompt: (t, budget) => answerPrompt('AnswerRelevancy', t, budget, 'none'),
  notApplicable: ({ level, element }) =>
    answeredWithToolCallsOnly(level, element) ? 'the LLM call answered with tool calls only: no text answer to judge' : undefined,
};

export const GROUNDEDNESS: JudgedMetricDefinition = {
  ...announced('Groundedness'),
  promptVersion: 1,
  rubric: rubric(
    'Are the claims of the response supported by the context, tool results and messages shown (not by outside knowledge)?',
    [
      'Every factual claim is supported by the context or tool results shown.',
      'Nearly all claims are supported; one minor detail is unsupported but harmless.',
      'Several claims are unsupported, or one important claim is not backed by the context.',
      'Most claims are unsupported or contradict the tool results.',
      'The response is fabricated or contradicts the context outright.',
    ],
  ),
  prompt: (t, budget) => answerPrompt('Groundedness', t, budget, 'required'),
};

export const INTENT_RECOGNITION_ACCURACY: JudgedMetricDefinition = {
  ...announced('IntentRecognitionAccuracy'),
  promptVersion: 1,
  rubric: rubric('Did the system correctly recognise the user\'s intent, as shown by what it did and answered?', [
    'The intent was understood exactly, including implicit constraints.',
    'The main intent was understood; a secondary nuance was missed.',
    'The intent was partly misread: the system pursued a related but different goal in part.',
    'The intent was mostly misread; only a superficial aspect was recognised.',
    'The intent was not recognised at all.',
  ]),
  prompt: (t, budget) => {
    requireText(userInputOf(t), 'IntentRecognitionAccuracy', 'user input', t);
    return conversationPrompt('IntentRecognitionAccuracy', t, budget);
  },
};

export const TASK_COMPLETION: JudgedMetricDefinition = {
  ...announced('TaskCompletion'),
  promptVersion: 1,
  rubric: rubric('Was the task asked for carried out to completion, judging by the actions taken and the result?', [
    'Fully completed: every requested outcome was achieved and confirmed.',
    'Completed with a minor gap (a small step missing or unconfirmed).',
    'Partly completed: a significant part of the task was not done.',
    'Barely started: only preliminary steps, no real result.',
    'Not completed: failed, abandoned or something else was done.',
  ]),
  prompt: (t, budget) => answerPrompt('TaskCompletion', t, budget, 'optional'),
};

export const TOOL_UTILIZATION_ACCURACY: JudgedMetricDefinition = {
  ...announced('ToolUtilizationAccuracy'),
  promptVersion: 1,
  rubric: rubric(
    'Was this tool call the right one for what the agent needed at that point, with correct arguments, and was its output used?',
    [
      'The right tool, correct arguments, and its output was used appropriately afterwards.',
      'The right tool and its output was used; arguments slightly off or one unnecessary field.',
      'A reasonable tool but wrong or incomplete arguments, or its output was largely ignored.',
      'A poor choice of tool for the need, or a redundant call whose output was not used.',
      'The wrong tool, or a call that could not serve the need at all.',
    ],
  ),
  prompt: (t, budget) => {
    const tool = t.element as ToolCall;
    const output = toolOutputOf(tool, 'ToolUtilizationAccuracy', t);
    const definition = tool.definition
      ? [tool.definition.description, tool.definition.inputSchema ? `input schema: ${show(tool.definition.inputSchema)}` : undefined]
          .filter(Boolean)
          .join('\n')
      : undefined;
    const conversation = conversationOf(t, Math.floor(budget / 2));
    return sections([
      ['Judged', `${describeElement(t)}${tool.toolCallId ? `, call id #${tool.toolCallId}` : ''}`],
      ['Tool', `${tool.toolName}${tool.mcp?.server ? ` (MCP server ${tool.mcp.server})` : ''}`],
      ['Tool definition', definition || undefined],
      ['Arguments', show(tool.arguments ?? tool.input) || '(none)'],
      ['Output', output],
      [
        'Conversation of the agent around the call (what it needed, and what it did with the output)',
        conversation.totalEntries > 0 ? conversation.text : undefined,
      ],
    ]);
  },
};

function conversational(
  name: string,
  goal: string,
  levels: [string, string, string, string, string],
  build: (metric: string, t: JudgedElement, budget: number) => string = conversationPrompt,
): JudgedMetricDefinition {
  return {
    ...announced(name),
    promptVersion: 1,
    rubric: rubric(goal, levels),
    prompt: (t, budget) => build(name, t, budget),
  };
}

export const GOAL_SUCCESS_RATE = conversational(
  'GoalSuccessRate',
  'Were the goals the user expressed over the conversation reached by the end?',
  [
    'Every goal the user expressed was reached.',
    'The main goal was reached; a secondary one was not fully.',
    'About half of the goals were reached, or the main one only partly.',
    'The main goal was not reached; only minor ones were.',
    'No goal was reached.',
  ],
);

export const RESPONSE_COMPLETENESS: JudgedMetricDefinition = {
  ...announced('ResponseCompleteness'),
  promptVersion: 1,
  rubric: rubric('Does the response address every part of the request with the information needed?', [
    'Complete: every part of the request is answered with enough detail.',
    'Nearly complete: one minor part or detail is missing.',
    'Partial: a significant part of the request is unanswered.',
    'Largely incomplete: only a small part is answered.',
    'Nothing of what was asked is answered.',
  ]),
  prompt: (t, budget) => answerPrompt('ResponseCompleteness', t, budget, 'none'),
};

export const CONSISTENCY = conversational(
  'Consistency',
  'Are the assistant\'s statements consistent with one another and with the facts given in the conversation and tool results?',
  [
    'Fully consistent: no contradiction anywhere.',
    'Consistent apart from a trivial wording difference.',
    'One real contradiction, or a statement at odds with a fact given.',
    'Several contradictions between responses or with facts given.',
    'Pervasively contradictory.',
  ],
);

export const CONTEXT_PRESERVATION = conversational(
  'ContextPreservation',
  'Is the context established earlier (topic, constraints, decisions, references) carried forward correctly in later turns?',
  [
    'All earlier context is carried forward and used correctly.',
    'Context is preserved; one minor detail was dropped without consequence.',
    'Some important context was lost or misapplied.',
    'Most earlier context was lost; later turns act as if starting over.',
    'Earlier context is ignored or contradicted throughout.',
  ],
);

export const INFORMATION_RETENTION = conversational(
  'InformationRetention',
  'Is information the user provided (names, numbers, preferences, facts) remembered and reused instead of asked again or forgotten?',
  [
    'Everything the user provided is remembered and reused where relevant.',
    'Remembered, with one minor lapse that did not matter.',
    'Some provided information was forgotten, re-asked or misremembered.',
    'Most provided information was forgotten or misremembered.',
    'Nothing the user provided was retained.',
  ],
);

export const WORKFLOW_COHESION_INDEX = conversational(
  'WorkflowCohesionIndex',
  'Do the agents and tools work together coherently toward the goal: sensible hand-offs, each step building on the previous one, no aimless loops?',
  [
    'Highly cohesive: every step and hand-off builds purposefully on the previous one.',
    'Cohesive, with one redundant or slightly misordered step.',
    'Mixed: several disconnected steps, repeated work or unclear hand-offs.',
    'Poorly coordinated: components mostly work past each other.',
    'No cohesion: chaotic, looping or contradictory workflow.',
  ],
  workflowPrompt,
);

export const COMPONENT_CONFLICT_RATE = conversational(
  'ComponentConflictRate',
  'Are the agents, tools and LLM calls free of conflicts: contradictory actions, undoing each other\'s work, competing for the same step?',
  [
    'No conflict between components at all.',
    'One minor conflict, resolved without effect on the outcome.',
    'Noticeable conflicts that cost extra work or partly affected the outcome.',
    'Frequent conflicts that derailed parts of the workflow.',
    'Components constantly conflict; the outcome is determined by the conflicts.',
  ],
  workflowPrompt,
);

export const LLM_JUDGED_DEFINITIONS: readonly JudgedMetricDefinition[] = [
  ANSWER_RELEVANCY,
  GROUNDEDNESS,
  INTENT_RECOGNITION_ACCURACY,
  TASK_COMPLETION,
  TOOL_UTILIZATION_ACCURACY,
  GOAL_SUCCESS_RATE,
  RESPONSE_COMPLETENESS,
  CONSISTENCY,
  CONTEXT_PRESERVATION,
  INFORMATION_RETENTION,
  WORKFLOW_COHESION_INDEX,
  COMPONENT_CONFLICT_RATE,
];
