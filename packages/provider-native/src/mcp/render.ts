/** Plain-text views of an MCP interaction for the judge and the endpoint System One model. */
import type { MCPServer } from '@mce/core';
import type { MCPCallRecord, MCPInteraction } from './interaction.js';
import { valueText } from './interaction.js';
import { clip } from '../text.js';


export function renderServers(servers: readonly MCPServer[]): string {
  const lines: string[] = [];
  for (const s of servers) {
    lines.push(`- server "${s.name}"${s.transport ? ` (${s.transport})` : ''}`);
    for (const t of s.tools ?? [])
      lines.push(`  - tool ${t.name}: ${t.description ?? '(no description)'}${t.inputSchema ? ` | input schema: ${clip(JSON.stringify(t.inputSchema), 600)}` : ''}`);
    for (const r of s.resources ?? [])
      lines.push(`  - resource ${r.uri}${r.name ? ` (${r.name})` : ''}: ${r.description ?? ''}${r.mimeType ? ` [${r.mimeType}]` : ''}`);
    for (const p of s.prompts ?? [])
      lines.push(`  - prompt ${p.name}: ${p.description ?? ''}${p.arguments?.length ? ` | arguments: ${p.arguments.map((a) => `${a.name}${a.required ? ' (required)' : ''}`).join(', ')}` : ''}`);
  }
  return lines.length ? lines.join('\n') : '(none)';
}

export function renderCall(call: MCPCallRecord, index: number): string {
  const target = call.kind === 'resource' ? (call.uri ?? call.name) : call.name;
  const head = `${index + 1}. ${call.kind} ${call.server ? `${call.server}/` : ''}${target}`;
  const args = call.arguments === undefined ? '' : ` arguments ${clip(valueText(call.arguments), 800)}`;
  const outcome =
    call.error !== undefined
      ? ` → ERROR: ${clip(call.error === true ? valueText(call.result) || 'failed' : call.error, 600)}`
      : ` → result: ${clip(valueText(call.result) || '(empty)', 1200)}`;
  return `${head}${args}${outcome}`;
}

export function renderCalls(calls: readonly MCPCallRecord[]): string {
  return calls.length ? calls.map(renderCall).join('\n') : '(no MCP primitive was called)';
}

/** Everything: request, earlier conversation, servers, calls and the reply. */
export function renderInteraction(interaction: MCPInteraction): string {
  return [
    `User request:\n${interaction.request || '(empty)'}`,
    ...(interaction.priorContext ? [`Earlier in the conversation:\n${clip(interaction.priorContext, 3000)}`] : []),
    `Available MCP servers:\n${renderServers(interaction.servers)}`,
    `MCP primitives called, in order:\n${renderCalls(interaction.calls)}`,
    `Reply shown to the user:\n${interaction.output || '(empty)'}`,
  ].join('\n\n');
}

/** Only what the user can see: earlier requests and replies, this request and its reply (task completion is judged on this). */
export function renderVisible(interaction: MCPInteraction): string {
  return [
    ...(interaction.priorVisible ? [`Earlier in the conversation:\n${clip(interaction.priorVisible, 3000)}`] : []),
    `User request:\n${interaction.request || '(empty)'}`,
    `Reply shown to the user:\n${interaction.output || '(empty)'}`,
  ].join('\n\n');
}
