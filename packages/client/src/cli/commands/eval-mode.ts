/** `mce set-eval-mode [llm|hybrid|system_one]`: persist the MCP metrics' default eval mode, or print it. */
import type { Command } from 'commander';
import { currentEvalMode, userConfigPath, writePersistedEvalMode } from '../../config/eval-mode.js';
import { UsageError, type CliIO } from '../context.js';

const SOURCES: Record<string, string> = {
  env: 'from MCE_EVAL_MODE',
  'user-config': 'from',
  default: 'the default',
  metric: "from the metric's own eval_mode",
};

export function registerEvalModeCommand(program: Command, io: CliIO): void {
  program
    .command('set-eval-mode [mode]')
    .description('persist the default eval mode of the MCP metrics (llm, hybrid, system_one); no argument: print it')
    .action((mode: string | undefined) => {
      const path = userConfigPath(io.env);
      if (mode !== undefined) {
        let saved: string;
        try {
          saved = writePersistedEvalMode(path, mode);
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
        io.stdout.write(`eval mode set to ${saved} in ${path}\n`);
        if (io.env.MCE_EVAL_MODE) io.stderr.write(`note: MCE_EVAL_MODE=${io.env.MCE_EVAL_MODE} overrides it in this environment\n`);
        return;
      }
      let current: ReturnType<typeof currentEvalMode>;
      try {
        current = currentEvalMode(io.env, path);
      } catch (error) {
        throw new UsageError((error as Error).message); // a bad MCE_EVAL_MODE or config file: bad input, as elsewhere
      }
      const where = current.source === 'user-config' ? `${SOURCES['user-config']} ${path}` : (SOURCES[current.source] ?? current.source);
      io.stdout.write(`${current.mode} (${where})\n`);
    });
}
