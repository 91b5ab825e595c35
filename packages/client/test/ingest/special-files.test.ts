/** A named pipe (or other special file) given as input is refused at once, naming it: reading one hung the command. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempWorkspace } from '../cli/run-cli.js';

describe('special files as input', () => {
  it('refuses a named pipe given to ingest and compute --input (exit 2), and leaves one in a directory out', async () => {
    const ws = tempWorkspace();
    const fifo = join(ws.dir, 'traces.json');
    execFileSync('mkfifo', [fifo]);
    const message = `mce: ${fifo}: not a regular file (a named pipe): give a file or a directory\n`;
    expect(await runCli(['ingest', fifo], ws)).toMatchObject({ code: 2, stderr: message });
    expect(await runCli(['compute', '--input', fifo], ws)).toMatchObject({ code: 2, stderr: message });
    expect(await runCli(['ingest', ws.dir], ws)).toMatchObject({ code: 2, stderr: `mce: ${ws.dir}: no .json, .jsonl or .ndjson files found\n` });
  });
});
