import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Session } from '@mce/core';
import { afterAll, expect } from 'vitest';
import { IngestError } from '../src/index.js';

export const fixture = (rel: string) => fileURLToPath(new URL(`./data/fixtures/${rel}`, import.meta.url));
export const dataFile = (rel: string) => fileURLToPath(new URL(`./data/${rel}`, import.meta.url));

/** The facts the fixture tests assert, in one comparable object. */
export function summarise(s: Session) {
  const agentName = new Map(s.agentCalls.map((a) => [a.id, a.agentName]));
  const sum = (k: 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'totalTokens') => s.llmCalls.reduce((n, c) => n + c.usage[k], 0);
  const names = s.agentCalls.map((a) => a.agentName);
  const transitions = names.slice(1).map((n, i) => `${names[i]} -> ${n}`).filter((t) => !/^(.+) -> \1$/.test(t));
  return {
    counts: {
      MASCall: s.masCalls.length,
      AgentCall: s.agentCalls.length,
      TaskCall: s.taskCalls.length,
      LLMCall: s.llmCalls.length,
      ToolCall: s.toolCalls.length,
    },
    tokens: { input: sum('inputTokens'), output: sum('outputTokens'), cacheRead: sum('cacheReadTokens'), total: sum('totalTokens') },
    agents: names,
    transitions,
    tools: s.toolCalls.map((t) => t.toolName),
    llmAgents: s.llmCalls.map((c) => agentName.get(c.agentCallId ?? '') ?? null),
    toolAgents: s.toolCalls.map((c) => agentName.get(c.agentCallId ?? '') ?? null),
    errors: [...s.llmCalls, ...s.toolCalls, ...s.agentCalls].filter((c) => c.status === 'error').map((c) => c.name),
  };
}

/** Drop the raw `attributes` kept verbatim from the source, recursively. */
export function withoutRaw<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v) => (k === 'attributes' ? undefined : v))) as T;
}

/** The IngestError `p` rejects with (the test fails when it resolves or rejects with anything else). */
export async function catchError(p: Promise<unknown>): Promise<IngestError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(IngestError);
    return err as IngestError;
  }
  throw new Error('expected an IngestError');
}

/**
 * A writer of numbered files (`f0.json`, `f1.jsonl`, …) in a temporary directory of its own, removed after the test
 * file; returns each file's path.
 */
export function tempFiles(prefix: string): (content: string, ext?: string) => string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return (content, ext = 'json') => {
    const p = join(dir, `f${n++}.${ext}`);
    writeFileSync(p, content);
    return p;
  };
}

/** The formats an error for a file of none of them lists. */
export const KNOWN =
  "the formats read are OTLP/JSON with resourceSpans (also as Jaeger's and Tempo's query APIs answer it), OTLP JSON Lines, ClickHouse otel_traces rows, an mce session file, any-agent AgentTrace JSON, a Langfuse trace export ({trace, observations}), Jaeger JSON (data[].spans[]), Zipkin v2 JSON, Phoenix / OpenInference span JSON or spans dataframe, OpenTelemetry console-exporter output (Python ConsoleSpanExporter, JS ReadableSpan), bare OTLP Span / ScopeSpans / ResourceSpans objects";
