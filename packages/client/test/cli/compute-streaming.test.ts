/**
 * `mce compute --input … --json` writes each computation as it is made, not the whole document at the end: a big
 * input's results held until then ran the process out of memory (1 GB of JSON Lines died after 99 s).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { tempWorkspace } from './run-cli.js';

describe('compute --input --json', () => {
  it('streams its {"sessions": [...]} a computation at a time, the document the same as written whole', async () => {
    const ws = tempWorkspace();
    const example = (name: string) => new URL(`../../../../examples/sessions/${name}`, import.meta.url).pathname;
    const files = ['handoff-three-agents.json', 'single-agent-tool.json', 'mcp-tools.json'].map(example);
    const ids = files.map((f) => (JSON.parse(readFileSync(f, 'utf8')) as { id: string }).id);
    const writes: string[] = [];
    const code = await main(['compute', '--input', ...files, '--json', '--metrics', 'Duration'], {
      stdout: { write: (s: string | Uint8Array) => (writes.push(String(s)), true) } as never,
      stderr: { write: () => true } as never,
      env: { ...ws.env },
      cwd: ws.dir,
    });
    expect(code).toBe(0);
    const text = writes.join('');
    const doc = JSON.parse(text) as { sessions: Array<{ sessionId: string }> };
    expect(doc.sessions.map((s) => s.sessionId).sort()).toEqual([...ids].sort());
    expect(text).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    expect(writes.length).toBe(doc.sessions.length + 1); // one write per computation, one to close the document
  });
});
