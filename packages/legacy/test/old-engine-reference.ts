/**
 * The telemetry-hub engine's deterministic session metrics, restated from its documented algorithms over the raw
 * ClickHouse rows (not from mce's model of them), to compare the legacy answers with what the old engine gave:
 * - agent spans are the `*.agent` spans, named by their `agent_id` (else `ioa_observe.entity.name`, else
 *   `traceloop.entity.name`); tool spans are `traceloop.span.kind = tool` or `*.tool`, named by
 *   `ioa_observe.entity.name` (else `traceloop.entity.name`); the event sequence is both, by Timestamp;
 * - AgentToAgentInteractions: a count per "A -> B" of consecutive different agents;
 * - AgentToToolInteractions: a count per "(Agent: <ioa_observe.workflow.name>) -> (Tool: <traceloop.entity.name or
 *   name>)"; a tool span without `ioa_observe.workflow.name` raised KeyError (the metric failed);
 * - Cycles: i = 0; for k = 2…⌊(n−i)/2⌋ if seq[i:i+k] = seq[i+k:i+2k] count, i += k; else i += 1;
 * - ToolErrorRate: 100 × error tool spans / tool spans, 0 without tools;
 * - WorkflowEfficiency: u unique transitions, 1 if u ≤ 2 else max(0, 1 − 0.2(u − 2)); skipped without transitions;
 * - GraphDeterminismScore: per session the set of "A -> B" edges between consecutive events; the mean over every pair
 *   of sessions of the size of the symmetric difference of their sets.
 */
import { readFileSync } from 'node:fs';
import { fixture } from './support.js';

type Row = { Timestamp: string; SpanName: string; StatusCode: string; SpanAttributes: Record<string, string | undefined> };

export interface OldValues {
  events: string[];
  agentToAgent: Record<string, number>;
  agentToTool: Record<string, number> | 'failed';
  cycles: number;
  toolErrorRate: number;
  workflowEfficiency: number | 'skipped';
}

function rowsOf(file: string): Row[] {
  const raw = JSON.parse(readFileSync(fixture(file), 'utf8')) as Row[] | Record<string, Row[]>;
  const rows = Array.isArray(raw) ? raw : Object.values(raw).flat();
  return [...rows].sort((a, b) => a.Timestamp.localeCompare(b.Timestamp));
}

function count(keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}

function cycles(seq: readonly string[]): number {
  let n = 0;
  let i = 0;
  while (i < seq.length) {
    let k = 2;
    for (; k <= Math.floor((seq.length - i) / 2); k++) if (seq.slice(i, i + k).join('\u0000') === seq.slice(i + k, i + 2 * k).join('\u0000')) break;
    if (k <= Math.floor((seq.length - i) / 2)) {
      n += 1;
      i += k;
    } else i += 1;
  }
  return n;
}

export function oldEngineValues(file: string): OldValues {
  const events: string[] = [];
  const agents: string[] = [];
  const toolKeys: string[] = [];
  let tools = 0;
  let errors = 0;
  let toolFailed = false;
  for (const row of rowsOf(file)) {
    const a = row.SpanAttributes;
    if (row.SpanName.endsWith('.agent')) {
      const name = a.agent_id ?? a['ioa_observe.entity.name'] ?? a['traceloop.entity.name'] ?? 'unknown';
      events.push(name);
      agents.push(name);
    } else if (a['traceloop.span.kind'] === 'tool' || row.SpanName.endsWith('.tool')) {
      const name = a['ioa_observe.entity.name'] ?? a['traceloop.entity.name'] ?? 'unknown';
      events.push(name);
      tools += 1;
      if (row.StatusCode === 'Error' || row.StatusCode === 'STATUS_CODE_ERROR') errors += 1;
      const workflow = a['ioa_observe.workflow.name'];
      if (workflow === undefined) toolFailed = true;
      else toolKeys.push(`(Agent: ${workflow}) -> (Tool: ${a['traceloop.entity.name'] ?? name})`);
    }
  }
  const transitions = agents.slice(1).flatMap((to, i) => (agents[i] !== to ? [`${agents[i]} -> ${to}`] : []));
  const unique = new Set(transitions).size;
  return {
    events,
    agentToAgent: count(transitions),
    agentToTool: toolFailed ? 'failed' : count(toolKeys),
    cycles: cycles(events),
    toolErrorRate: tools === 0 ? 0 : (100 * errors) / tools,
    workflowEfficiency: transitions.length === 0 ? 'skipped' : unique <= 2 ? 1 : Math.max(0, 1 - 0.2 * (unique - 2)),
  };
}

/** GraphDeterminismScore over the sessions of these files (one session each). */
export function oldGraphDeterminism(files: readonly string[]): number {
  const sets = files.map((file) => {
    const { events } = oldEngineValues(file);
    return new Set(events.slice(1).map((to, i) => `${events[i]} -> ${to}`));
  });
  let total = 0;
  let pairs = 0;
  for (let i = 0; i < sets.length; i++) {
    for (let j = i + 1; j < sets.length; j++) {
      total += [...sets[i]!].filter((e) => !sets[j]!.has(e)).length + [...sets[j]!].filter((e) => !sets[i]!.has(e)).length;
      pairs += 1;
    }
  }
  return total / pairs;
}
