/**
 * Step 5, tool calls: a tool span and the spans merged into it (MCP client and server spans of one call). A field is
 * taken from the first span that has it, the outer one first; an error on an inner (server-side) span is the call's.
 */
import type { MCPCallInfo, ToolCall } from '@mce/core';
import { field, stringField } from '../dialects/index.js';
import { parseJsonMaybe } from '../messages.js';
import { mcpServerOf, statusOf, toolNameOf } from './span-facts.js';
import { set, type Node } from './node.js';
import type { ServerNames } from './inventory.js';

/** Fills `t` (its base fields set) from the span of `n` and the spans merged into it. */
export function fillToolCall(t: ToolCall, n: Node, inner: readonly Node[], servers: ServerNames): ToolCall {
  const s = n.span;
  const all = inner.length ? [n, ...inner] : [n];
  const cls = all.find((x) => x.cls.mcpMethod)?.cls ?? n.cls;
  const pick = (f: Parameters<typeof field>[1]) => {
    for (const x of all) {
      const v = field(x.span, f);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  const st = inner.map((x) => statusOf(x.span)).find((x) => x.status === 'error');
  if (st && t.status !== 'error') {
    t.status = 'error';
    set(t, 'error', st.error);
  }
  t.toolName = toolNameOf(s, cls);
  const toolCallId = pick('toolCallId');
  set(t, 'toolCallId', toolCallId === undefined ? undefined : String(toolCallId));
  const args = pick('toolArguments') ?? field(s, 'input');
  const result = pick('toolResult') ?? field(s, 'output');
  set(t, 'arguments', args === undefined ? undefined : parseJsonMaybe(args));
  set(t, 'result', result === undefined ? undefined : parseJsonMaybe(result));
  // The tool's own description: its definition when no model was offered one (step 6).
  const description = pick('toolDescription');
  if (typeof description === 'string') t.definition = { name: t.toolName, description };
  if (cls.mcpMethod) {
    const mcpInfo: MCPCallInfo = {
      kind: cls.mcpMethod === 'resources/read' ? 'resource' : cls.mcpMethod === 'prompts/get' ? 'prompt' : 'tool',
      method: cls.mcpMethod,
    };
    set(mcpInfo, 'server', all.map((x) => servers.of(x.span)).find((v) => v !== undefined));
    // A server name refused (a control character) was said already: not looked for elsewhere.
    if (mcpInfo.server === undefined && all.some((x) => mcpServerOf(x.span) !== undefined)) servers.refusedCalls.add(s.spanId);
    set(mcpInfo, 'uri', all.map((x) => stringField(x.span, 'mcpResourceUri')).find((v) => v !== undefined));
    t.mcp = mcpInfo;
  }
  return t;
}
