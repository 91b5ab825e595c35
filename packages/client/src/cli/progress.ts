/**
 * Progress of long runs on stderr: a bar with rate and ETA when stderr is a terminal, nothing otherwise
 * (pipes, CI, `--json`).
 */
import { createRequire } from 'node:module';
import type cliProgress from 'cli-progress';

/** cli-progress (CommonJS), loaded when a bar is first drawn: most runs write to no terminal. */
const loadBar = (): typeof cliProgress => createRequire(import.meta.url)('cli-progress') as typeof cliProgress;

export interface Progress {
  start(total: number, unit: string): void;
  increment(by?: number): void;
  stop(): void;
}

const silent: Progress = { start() {}, increment() {}, stop() {} };

export function createProgress(stream: NodeJS.WriteStream = process.stderr, enabled = true): Progress {
  if (!enabled || !stream.isTTY) return silent;
  let bar: cliProgress.SingleBar | undefined;
  return {
    start(total, unit) {
      const bars = loadBar();
      bar = new bars.SingleBar(
        {
          stream,
          format: `{bar} {percentage}% | {value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`,
          hideCursor: true,
          clearOnComplete: true,
          etaBuffer: 50,
        },
        bars.Presets.shades_classic,
      );
      bar.start(total, 0, { rate: '0' });
    },
    increment(by = 1) {
      if (!bar) return;
      const started = (bar as unknown as { startTime: number }).startTime ?? Date.now();
      const value = bar.getProgress() * bar.getTotal() + by;
      const seconds = Math.max((Date.now() - started) / 1000, 1e-3);
      bar.increment(by, { rate: (value / seconds).toFixed(1) });
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
