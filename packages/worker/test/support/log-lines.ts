/** A worker logger whose lines (at `level` and above) a test reads back, parsed. */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@mce/worker';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export const WARN = 40;

export function capturedLog(level = 'info'): { lines: LogLine[]; logger: Logger } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write: (chunk, _encoding, done) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { lines, logger: createLogger({ level, destination: destination as never }) };
}
