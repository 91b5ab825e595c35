/**
 * The command's log lines hold no secret of its environment, whatever a line quotes: here a session id, quoted in
 * the warning that skips its span, that happens to be the judge's key.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempWorkspace } from './run-cli.js';

describe('secrets in log lines', () => {
  it('writes the judge key *** in a logged warning that quotes it', async () => {
    const ws = tempWorkspace();
    ws.env.OPENAI_API_KEY = 'sk-logged-secret-4242';
    const span = (session: string, id: string) =>
      `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"${id}","name":"chat gpt-4o","startTimeUnixNano":"1767261600000000000","endTimeUnixNano":"1767261601000000000",` +
      `"attributes":[{"key":"session.id","value":{"stringValue":"${session}"}},{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}]}`;
    const file = join(ws.dir, 'traces.json');
    writeFileSync(file, `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[${span('sk-logged-secret-4242\\n', 'b7ad6b7169203331')},${span('ok', 'b7ad6b7169203332')}]}]}]}`);
    const run = await runCli(['ingest', file, '--json'], ws);
    const logged = run.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { message: string });
    expect([run.code, logged.map((w) => w.message)]).toEqual([0, [expect.stringMatching(/^skipped span b7ad6b7169203331: session id "\*\*\*\\u000a"/)]]);
    expect(run.stderr).not.toContain('sk-logged-secret-4242');
  });
});
