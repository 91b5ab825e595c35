/**
 * Rate-limited log lines for failures that repeat (a move to the retry queue failing for every message of a batch,
 * a queue declaration retried every few seconds): the first line of a kind is written, the next ones within the
 * window are only counted, and one line says how many there were when the window ends.
 */
import type { Logger } from 'pino';

type Level = 'info' | 'warn' | 'error';

interface Window {
  level: Level;
  msg: string;
  repeated: number;
  timer: NodeJS.Timeout;
}

/** Default window: one line per kind per minute at most, plus its summary. */
export const REPEAT_WINDOW_MS = 60_000;

export class RepeatLimit {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly log: Logger,
    private readonly windowMs = REPEAT_WINDOW_MS,
  ) {}

  info(kind: string, fields: object, msg: string): void {
    this.write('info', kind, fields, msg);
  }

  warn(kind: string, fields: object, msg: string): void {
    this.write('warn', kind, fields, msg);
  }

  error(kind: string, fields: object, msg: string): void {
    this.write('error', kind, fields, msg);
  }

  /** Ends every window now, writing the summaries due (at close, so no count is left unsaid). */
  flush(): void {
    for (const kind of [...this.windows.keys()]) this.end(kind);
  }

  private write(level: Level, kind: string, fields: object, msg: string): void {
    const open = this.windows.get(kind);
    if (open) {
      open.repeated += 1;
      this.log.debug(fields, msg);
      return;
    }
    this.log[level](fields, msg);
    const timer = setTimeout(() => this.end(kind), this.windowMs);
    timer.unref();
    this.windows.set(kind, { level, msg, repeated: 0, timer });
  }

  private end(kind: string): void {
    const window = this.windows.get(kind);
    if (!window) return;
    clearTimeout(window.timer);
    this.windows.delete(kind);
    if (window.repeated > 0) {
      this.log[window.level]({ repeated: window.repeated, windowMs: this.windowMs }, `${window.msg} (${window.repeated} more like it since)`);
    }
  }
}
