/**
 * The features of the fourth revision: the request's values carried by the calls (request_value_unused,
 * part_values_unused), a call the reply says nothing of (call_unreported), failures known by their shape, and
 * replies that own a failure.
 */
import { describe, expect, it } from 'vitest';
import { errorByShape, withErrorsByShape } from '../../src/mcp/system-one/error-shape.js';
import { FEATURE_NAMES, extractFeatures } from '../../src/mcp/system-one/features.js';
import { requestValues, valueUse } from '../../src/mcp/system-one/request-values.js';
import type { MCPCallRecord, MCPInteraction } from '../../src/mcp/interaction.js';

const tool = (name: string, description: string, properties: Record<string, unknown>) => ({ name, description, inputSchema: { type: 'object', properties } });
const servers = [
  {
    name: 'code',
    tools: [
      tool('list_issues', 'List issues of a repository', { owner: { type: 'string' }, repo: { type: 'string' }, labels: { type: 'array' } }),
      tool('search_repositories', 'Search repositories', { query: { type: 'string' } }),
    ],
    resources: [],
    prompts: [],
  },
  { name: 'chat', tools: [tool('post_message', 'Post a message to a channel', { channel_id: { type: 'string' }, text: { type: 'string' } })], resources: [], prompts: [] },
];
const call = (name: string, args: Record<string, unknown>, result: unknown, server = 'code'): MCPCallRecord => ({ server, kind: 'tool', name, arguments: args, result });
const feature = (i: Omit<MCPInteraction, 'servers'>, name: (typeof FEATURE_NAMES)[number]) => extractFeatures({ ...i, servers })[FEATURE_NAMES.indexOf(name)];

const request = 'Which issues are open in kubernetes/minikube with the area/networking label?';
const issues = [{ number: 18877, title: 'DNS lookups fail behind corporate proxy' }];
const listed = call('list_issues', { owner: 'kubernetes', repo: 'minikube', labels: ['area/networking'] }, issues);
const reply = 'One: #18877 DNS lookups fail behind corporate proxy.';

describe("the request's values", () => {
  it('ids, paths, repositories, numbers and quoted titles are values; plain and hyphenated words are not', () => {
    const values = requestValues('Open a PR in acme/billing from feature/tax-rounding, title "Round tax per line item", to double-check 15:00.');
    expect(values.map((v) => v.forms)).toEqual([['round tax per line item'], ['acme/billing'], ['feature/tax-rounding'], ['15:00']]);
  });

  it('a name with its id in brackets after it is one value, carried by either', () => {
    const values = requestValues('Post it in #team-core (C07QXRM2B) now');
    expect(values.map((v) => v.forms)).toEqual([['#team-core', 'c07qxrm2b']]);
    const carried = { lower: 'c07qxrm2b\nposted', words: () => new Set(['c07qxrm2b', 'post']) };
    expect(valueUse('Post it in #team-core (C07QXRM2B) now', [], carried).unused).toBe(0);
  });

  it('a value is carried whole, or segment by segment (owner and repo), never as part of another value', () => {
    expect(feature({ request, calls: [listed], output: reply }, 'request_value_unused')).toBe(0);
    // the confusable tool: a search that sends other words than the user's
    const searched = call('search_repositories', { query: 'minikube networking' }, { items: [{ full_name: 'kubernetes/minikube' }] });
    expect(feature({ request, calls: [searched], output: 'Found kubernetes/minikube.' }, 'request_value_unused')).toBe(0.5);
    // another repository's name that merely begins with the user's: `minikube-old` is not `minikube`
    const other = call('list_issues', { owner: 'kubernetes', repo: 'minikube-old', labels: ['area/networking'] }, []);
    expect(feature({ request, calls: [other], output: 'None.' }, 'request_value_unused')).toBe(0.5);
    // a number needs only no digit beside it: 2024 is in '2024-03-01'
    expect(valueUse('Orders in March 2024?', [], { lower: "placed_at >= '2024-03-01'", words: () => new Set() }).unused).toBe(0);
  });

  it('a part whose own values no call carried is left undone, and its values leave the share', () => {
    const two = `${request} And post the count to C024BE91L.`;
    const parts = [request, 'And post the count to C024BE91L.'];
    expect(feature({ request: two, calls: [listed], output: reply }, 'part_values_unused')).toBe(1);
    expect(feature({ request: two, calls: [listed], output: reply }, 'request_value_unused')).toBe(0);
    const posted = call('post_message', { channel_id: 'C024BE91L', text: '1 issue' }, { ok: true }, 'chat');
    expect(feature({ request: two, calls: [listed, posted], output: `${reply} Posted the count to C024BE91L.` }, 'part_values_unused')).toBe(0);
    expect(valueUse(two, parts, { lower: 'kubernetes minikube area/networking', words: () => new Set() })).toEqual({ unused: 0, partUndone: 1 });
  });
});

describe('a call the reply says nothing of (call_unreported)', () => {
  const posted = call('post_message', { channel_id: 'C024BE91L', text: 'minikube networking issues: 18877' }, { ok: true }, 'chat');
  it('a message posted beside the answer, never mentioned, is unreported; told of, it is not', () => {
    expect(feature({ request, calls: [listed, posted], output: reply }, 'call_unreported')).toBe(1);
    expect(feature({ request, calls: [listed, posted], output: `${reply} Posted it to C024BE91L.` }, 'call_unreported')).toBe(0);
    expect(feature({ request, calls: [listed], output: reply }, 'call_unreported')).toBe(0);
  });

  it('the text a call composed does not report it (it often is the reply), nor does an earlier call\'s word it quotes', () => {
    const echo = call('post_message', { channel_id: 'C024BE91L', text: reply }, { ok: true }, 'chat');
    expect(feature({ request, calls: [listed, echo], output: reply }, 'call_unreported')).toBe(1);
  });

  it("an unreported call's invented values are its own fault, not the arguments' (ungrounded_value)", () => {
    expect(feature({ request, calls: [listed, posted], output: reply }, 'ungrounded_value')).toBe(0);
    expect(feature({ request, calls: [listed, posted], output: `${reply} Posted it to C024BE91L.` }, 'ungrounded_value')).toBe(0.5);
  });
});

describe('failures known by their shape or opening words', () => {
  it('MCP isError, ok: false, an error field, an HTTP status, an error opening, a bare error code', () => {
    expect(errorByShape({ content: [{ type: 'text', text: 'boom' }], isError: true })).toBeDefined();
    expect(errorByShape({ ok: false, error: 'not_in_channel' })).toBeDefined();
    expect(errorByShape({ status: 503, message: 'unavailable' })).toBeDefined();
    expect(errorByShape('{"statusCode":429}')).toBeDefined();
    expect(errorByShape({ content: [{ type: 'text', text: 'Error: repository not found' }] })).toBe('Error: repository not found');
    for (const text of ['Error: relation "orders" does not exist', 'Not Found: No commit found for the ref next', '403 Forbidden', 'ENOENT: no such file', 'Rate Limit Exceeded: try later', 'thread_not_found', 'Access denied - path outside allowed directories'])
      expect(errorByShape(text), text).toBe(text);
  });

  it('data that speaks of errors is not a failure', () => {
    expect(errorByShape([{ number: 12, title: 'Gateway timeout on /export' }])).toBeUndefined();
    expect(errorByShape({ ok: true, status: 200, error: null })).toBeUndefined();
    expect(errorByShape('450 files indexed')).toBeUndefined();
    expect(errorByShape({ content: [{ type: 'text', text: '3 open issues' }] })).toBeUndefined();
    expect(errorByShape('Successfully wrote to /projects/notes/todo.txt')).toBeUndefined();
    expect(errorByShape('release_notes_ready')).toBeUndefined();
  });

  it('a call whose result is an error counts as failed: an ignored one is unacknowledged, an owned one is not', () => {
    const failed = call('list_issues', { owner: 'kubernetes', repo: 'minikube', labels: ['area/networking'] }, 'Rate Limit Exceeded: API rate limit exceeded');
    const same: MCPInteraction = { request, servers, calls: [listed], output: reply };
    expect(withErrorsByShape(same)).toBe(same);
    expect(feature({ request, calls: [failed], output: reply }, 'error_unacknowledged')).toBe(1);
    expect(feature({ request, calls: [failed], output: 'GitHub refused: the rate limit was hit.' }, 'error_unacknowledged')).toBe(0);
    expect(feature({ request, calls: [failed], output: "The search didn't go through." }, 'output_failure')).toBe(1);
  });
});
