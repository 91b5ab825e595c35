/** The report's model and markup without a browser: tree order and parents, costs, escaping, outcomes, the CLI's errors. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ResultRecord, Session } from '@mce/core';
import { buildSessionReport, reportDocument, type ReportNode } from '../../src/report/index.js';
import { runCli, tempWorkspace } from '../cli/run-cli.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const example = (p: string) => join(repo, 'examples', p);
const handoff = () => JSON.parse(readFileSync(example('sessions/handoff-three-agents.json'), 'utf8')) as Session;

function result(name: string, level: ResultRecord['level'], measures: string, value: number): ResultRecord {
  return {
    id: `${name}-${measures}`, name, provider: 'mce', level, measures, result: value, unit: 'USD', reasoning: '', evaluationModel: null,
    evaluationPromptTokenCount: 0, evaluationCompletionTokenCount: 0, evaluationTotalTokenCount: 0, evaluationCost: 0, timestamp: '2026-12-02T00:00:00.000Z',
  };
}

const labels = (nodes: readonly ReportNode[]): unknown[] => nodes.map((n) => (n.children.length ? [n.label, labels(n.children)] : n.label));

describe('the session report', () => {
  it('nests calls under their parents in start order, a call whose parent is not in the session under the session', () => {
    const s = handoff();
    const late = s.toolCalls[0]!;
    s.toolCalls.push({ ...late, id: 'orphan', parentId: 'not-in-session', toolName: 'orphan_tool', startTime: s.startTime + 1 });
    const report = buildSessionReport(s, { sessionId: s.id, results: [], failed: [], skipped: [] });
    expect(labels(report.root.children)).toEqual([
      ['support_flow', [['router', ['claude-sonnet-4']], ['billing', ['claude-sonnet-4', 'lookup_order', 'issue_refund', 'claude-sonnet-4']], ['escalation', ['gpt-4o']]]],
      'orphan_tool',
    ]);
    expect(report.elementCount).toBe(11);
  });

  it('sums the LLM calls’ Cost results by model and by agent; no Cost result is "not computed", not 0', () => {
    const s = handoff();
    const [a, b, c, d] = s.llmCalls.map((l) => l.id);
    const results = [result('Cost', 'LLMCall', a!, 0.001), result('Cost', 'LLMCall', b!, 0.002), result('Cost', 'LLMCall', c!, 0.004)];
    const report = buildSessionReport(s, { sessionId: s.id, results, failed: [], skipped: [] });
    expect(report.costByModel.map((r) => [r.name, r.llmCalls, r.costUsd])).toEqual([
      ['claude-sonnet-4', 3, 0.007],
      ['gpt-4o', 1, undefined],
    ]);
    expect(report.costByAgent.find((r) => r.name === 'billing')?.costUsd).toBeCloseTo(0.006, 12);
    expect(d).toBeDefined();
    expect(reportDocument([report])).toContain('<td class="num"><span class="muted">not computed</span></td>');
  });

  it('sums judge tokens and cost once: an aggregate restating its inputs’ usage (usageRestated) is not paid twice', () => {
    const s = handoff();
    const [t1, t2] = s.toolCalls.map((t) => t.id);
    const judged = (measures: string, level: ResultRecord['level'], tokens: number, cost: number, details?: Record<string, unknown>): ResultRecord => ({
      ...result('ToolUtilizationAccuracy', level, measures, 0.8), unit: 'score', evaluationModel: 'gpt-4o-mini',
      evaluationPromptTokenCount: tokens - 20, evaluationCompletionTokenCount: 20, evaluationTotalTokenCount: tokens, evaluationCost: cost, ...(details ? { details } : {}),
    });
    const results = [
      judged(t1!, 'ToolCall', 150, 0.002),
      judged(t2!, 'ToolCall', 170, 0.003),
      // The session aggregate carries the two calls' usage in its evaluation fields (what it cost, as the spec asks).
      judged(s.id, 'Session', 320, 0.005, { scored: 2, usageRestated: true }),
    ];
    const report = buildSessionReport(s, { sessionId: s.id, results, failed: [], skipped: [] });
    expect(report.judge).toEqual({ results: 3, totalTokens: 320, costUsd: 0.005, models: ['gpt-4o-mini'] });
    // Unmarked, the same aggregate would be counted as a third payment.
    const unmarked = results.map((r) => (r.level === 'Session' ? { ...r, details: { scored: 2 } } : r));
    expect(buildSessionReport(s, { sessionId: s.id, results: unmarked, failed: [], skipped: [] }).judge.totalTokens).toBe(640);
  });

  it('escapes every text from the trace, in the page and in the data of a large session', () => {
    const s = handoff();
    s.agentCalls[0]!.agentName = '<img src=x onerror=alert(1)>';
    s.userInput = '</script><script>alert(2)</script>';
    const small = reportDocument([buildSessionReport(s, { sessionId: s.id, results: [], failed: [], skipped: [] })]);
    expect(small).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(small).not.toContain('<img src=x');
    expect(small).not.toContain('<script>alert(2)');
    // Over 300 calls: the calls below the first level are JSON in a script element; no "</script" may end it early.
    for (let i = 0; i < 400; i++) s.toolCalls.push({ ...s.toolCalls[0]!, id: `t${i}`, toolName: `</script><b>${i}` });
    const large = reportDocument([buildSessionReport(s, { sessionId: s.id, results: [], failed: [], skipped: [] })]);
    expect(large).toContain('<script type="application/json" class="lazy-data">');
    expect(large.match(/<\/script/gi)).toHaveLength(2); // the data's own end and the page script's
    expect(large).not.toContain('<b>1');
  });

  it('says when failed and skipped metrics are unknown (stored results) rather than "none failed"', () => {
    const s = handoff();
    const known = reportDocument([buildSessionReport(s, { sessionId: s.id, results: [], failed: [{ name: 'AnswerRelevancy', level: 'Session', measures: s.id, error: 'judge down' }], skipped: [] })]);
    expect(known).toContain('<strong>AnswerRelevancy</strong> failed on Session support-7781: judge down');
    const stored = reportDocument([buildSessionReport(s, { sessionId: s.id, results: [], failed: [], skipped: [] }, false)]);
    expect(stored).toContain('Failed and skipped metrics are not kept by the store');
    expect(stored).not.toContain('None failed.');
  });
});

describe('mce report', () => {
  it('writes to stdout with -o -, and refuses bad usage with exit 2', async () => {
    const ws = tempWorkspace();
    const out = await runCli(['report', '--input', example('sessions/single-agent-tool.json'), '-o', '-'], ws);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^<!doctype html>/);
    expect(out.stdout).toContain('<h2 id="session-1-h">Session weather-001</h2>');
    expect((await runCli(['report'], ws)).stderr).toBe('mce: report: give session ids or --input FILE… (one of them)\n');
    expect((await runCli(['ingest', example('sessions/single-agent-tool.json')], ws)).code).toBe(0);
    expect((await runCli(['report', 'weather-001', '--metrics', 'Duration'], ws)).code).toBe(2);
    const missing = await runCli(['report', 'weather-001', 'nope', '-o', join(ws.dir, 'r.html')], ws);
    expect([missing.code, missing.stderr]).toEqual([2, 'mce: Session not found: nope\n']);
    const stored = await runCli(['report', 'weather-001', '-o', '-'], ws);
    expect(stored.stdout).toContain('Failed and skipped metrics are not kept by the store');
  });

  it('--input: a session whose two parts are 120 sessions apart is reported once, merged', async () => {
    const ws = tempWorkspace();
    const session = JSON.parse(readFileSync(example('sessions/single-agent-tool.json'), 'utf8')) as Session;
    const rename = <T extends { id: string }>(calls: T[]) => calls.map((c) => ({ ...c, id: `${c.id}-b` }));
    const files = ['a.json', 'b.json', 'c.json'].map((f) => join(ws.dir, f));
    writeFileSync(files[0]!, JSON.stringify({ ...session, id: 'split' }));
    writeFileSync(files[1]!, JSON.stringify({ sessions: Array.from({ length: 120 }, (_, i) => ({ ...session, id: `fill-${i}` })) }));
    writeFileSync(files[2]!, JSON.stringify({ ...session, id: 'split', llmCalls: rename(session.llmCalls), toolCalls: rename(session.toolCalls) }));
    const run = await runCli(['report', '--input', ...files, '--metrics', 'LLMCallCount', '-o', '-'], ws);
    expect(run.code).toBe(0);
    expect(run.stdout.match(/<h2 id="session-\d+-h">/g)).toHaveLength(121);
    expect(run.stdout.match(/>Session split</g)).toHaveLength(1);
    // The two parts' calls in one tree: the MAS and agent calls once, 2 + 2 LLM calls and 1 + 1 tool calls.
    const section = run.stdout.slice(run.stdout.indexOf('>Session split<'), run.stdout.indexOf('>Session fill-0<'));
    expect(section).toContain('<dt>Calls</dt><dd>8</dd>');
  });
});
