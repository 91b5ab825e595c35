/**
 * Progress of long runs on stderr: a bar with rate and ETA when stderr is a terminal, nothing otherwise
 * (pipes, CI, `--json`).
 */
import cliProgress from 'cli-progress';

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
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `{bar} {percentage}% | {value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`,
          hideCursor: true,
          clearOnComplete: true,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
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
