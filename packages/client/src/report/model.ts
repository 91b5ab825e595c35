/**
 * What a session report shows, derived from a session and its metric results: the call tree (children in start
 * order), every result beside the element it measures, failed and skipped metrics, and cost by model and by agent.
 * Plain data: the HTML components (html.ts) only lay it out.
 */
import { ONTOLOGY_LEVELS, elementsAt, type Call, type LLMCall, type OntologyLevel, type ResultRecord, type Session, type SessionComputation } from '@mce/core';

export interface ReportNode {
  id: string;
  level: OntologyLevel;
  /** What a person calls it: the agent, tool or task name, the model, the workflow. */
  label: string;
  /** Extra facts shown beside the label (model, MCP server, error). */
  facts: string[];
  startTime: number;
  endTime: number;
  status: Call['status'] | 'ok';
  results: ResultRecord[];
  failed: SessionComputation['failed'];
  skipped: SessionComputation['skipped'];
  children: ReportNode[];
}

export interface CostRow {
  /** The model or agent name. */
  name: string;
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Sum of the LLM calls' `Cost` results (USD); undefined when Cost was not computed for any of them. */
  costUsd: number | undefined;
}

export interface SessionReport {
  session: Pick<Session, 'id' | 'startTime' | 'endTime' | 'serviceName' | 'appName' | 'userInput' | 'finalResponse'>;
  root: ReportNode;
  elementCount: number;
  resultCount: number;
  failed: SessionComputation['failed'];
  skipped: SessionComputation['skipped'];
  /**
   * Whether failed and skipped metrics are known: a computation knows them, a store keeps only results (a report of
   * stored results says so rather than showing "none failed").
   */
  outcomesKnown: boolean;
  costByModel: CostRow[];
  costByAgent: CostRow[];
  /** What the judged metrics cost (sum of evaluationCost, USD) and their tokens. */
  judge: { results: number; totalTokens: number; costUsd: number; models: string[] };
  mcpServers: string[];
}

function labelOf(call: Call): string {
  switch (call.kind) {
    case 'MASCall':
      return call.workflowName ?? call.name;
    case 'AgentCall':
      return call.agentName;
    case 'TaskCall':
      return call.taskName;
    case 'LLMCall':
      return call.responseModel ?? call.requestModel ?? call.name;
    case 'ToolCall':
      return call.toolName;
  }
}

function factsOf(call: Call): string[] {
  const facts: string[] = [];
  if (call.kind === 'LLMCall') facts.push(`${call.usage.inputTokens} in / ${call.usage.outputTokens} out tokens`);
  if (call.kind === 'ToolCall' && call.mcp) facts.push(`MCP ${call.mcp.kind}${call.mcp.server ? ` on ${call.mcp.server}` : ''}`);
  if (call.status === 'error') facts.push(`error${call.error?.type ? ` ${call.error.type}` : ''}${call.error?.message ? `: ${call.error.message}` : ''}`);
  return facts;
}

/** Records grouped by the element they measure (`level\u0000id`). */
function byElement<T extends { level: OntologyLevel; measures: string }>(records: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of records) {
    const key = `${r.level}\u0000${r.measures}`;
    const list = out.get(key);
    if (list) list.push(r);
    else out.set(key, [r]);
  }
  return out;
}

/** Every call of the session, in ontology order. */
function callsOf(session: Session): Call[] {
  return ONTOLOGY_LEVELS.filter((l) => l !== 'Session').flatMap((level) => elementsAt(session, level) as Call[]);
}

export function buildSessionReport(session: Session, computation: SessionComputation, outcomesKnown = true): SessionReport {
  const results = byElement(computation.results);
  const failed = byElement(computation.failed);
  const skipped = byElement(computation.skipped);
  const take = (level: OntologyLevel, id: string) => {
    const key = `${level}\u0000${id}`;
    return { results: results.get(key) ?? [], failed: failed.get(key) ?? [], skipped: skipped.get(key) ?? [] };
  };
  const root: ReportNode = {
    id: session.id,
    level: 'Session',
    label: session.id,
    facts: [],
    startTime: session.startTime,
    endTime: session.endTime,
    status: 'ok',
    ...take('Session', session.id),
    children: [],
  };
  const calls = callsOf(session);
  const nodes = new Map<string, ReportNode>();
  for (const call of calls) {
    nodes.set(call.id, { id: call.id, level: call.kind, label: labelOf(call), facts: factsOf(call), startTime: call.startTime, endTime: call.endTime, status: call.status, ...take(call.kind, call.id), children: [] });
  }
  for (const call of calls) {
    // A parent outside the session (or none) hangs the call under the session itself.
    const parent = (call.parentId !== undefined && call.parentId !== call.id ? nodes.get(call.parentId) : undefined) ?? root;
    parent.children.push(nodes.get(call.id)!);
  }
  sortTree(root);
  return {
    session: pickSession(session),
    root,
    elementCount: calls.length,
    resultCount: computation.results.length,
    failed: computation.failed,
    skipped: computation.skipped,
    outcomesKnown,
    costByModel: costRows(session.llmCalls, computation.results, (c) => c.responseModel ?? c.requestModel ?? '(unknown model)'),
    costByAgent: costRows(session.llmCalls, computation.results, agentNamer(session)),
    judge: judgeUsage(computation.results),
    mcpServers: session.mcpServers.map((s) => s.name),
  };
}

function pickSession(s: Session): SessionReport['session'] {
  const { id, startTime, endTime, serviceName, appName, userInput, finalResponse } = s;
  return { id, startTime, endTime, ...(serviceName ? { serviceName } : {}), ...(appName ? { appName } : {}), ...(userInput ? { userInput } : {}), ...(finalResponse ? { finalResponse } : {}) };
}

/** Children in start order (ties by end), iteratively: a 10,000-deep chain must not overflow the stack. */
function sortTree(root: ReportNode): void {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    node.children.sort((a, b) => a.startTime - b.startTime || a.endTime - b.endTime);
    stack.push(...node.children);
  }
}

function agentNamer(session: Session): (call: LLMCall) => string {
  const names = new Map(session.agentCalls.map((a) => [a.id, a.agentName]));
  return (call) => (call.agentCallId !== undefined ? names.get(call.agentCallId) : undefined) ?? '(no agent)';
}

function costRows(calls: readonly LLMCall[], results: readonly ResultRecord[], keyOf: (call: LLMCall) => string): CostRow[] {
  const costOf = new Map(results.filter((r) => r.level === 'LLMCall' && r.name === 'Cost').map((r) => [r.measures, r.result]));
  const rows = new Map<string, CostRow>();
  for (const call of calls) {
    const name = keyOf(call);
    const row = rows.get(name) ?? { name, llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: undefined };
    row.llmCalls += 1;
    row.inputTokens += call.usage.inputTokens;
    row.outputTokens += call.usage.outputTokens;
    const cost = costOf.get(call.id);
    if (cost !== undefined) row.costUsd = (row.costUsd ?? 0) + cost;
    rows.set(name, row);
  }
  return [...rows.values()].sort((a, b) => (b.costUsd ?? -1) - (a.costUsd ?? -1) || b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens));
}

function judgeUsage(results: readonly ResultRecord[]): SessionReport['judge'] {
  const judged = results.filter((r) => r.evaluationModel !== null);
  // An aggregate restating its inputs' judge usage (MeanToolUtilizationAccuracy) is not a second cost.
  const paid = judged.filter((r) => r.details?.usageRestated !== true);
  return {
    results: judged.length,
    totalTokens: paid.reduce((n, r) => n + r.evaluationTotalTokenCount, 0),
    costUsd: paid.reduce((n, r) => n + r.evaluationCost, 0),
    models: [...new Set(judged.map((r) => r.evaluationModel!))],
  };
}
