/**
 * The old `mce-server`: `mce serve` with the telemetry-hub routes, started from the old engine's environment. HOST and
 * PORT are kept (HOST defaults to loopback, where the old server listened on 0.0.0.0: beyond loopback mce asks for an
 * API key); the old judge and cache variables are set under their mce names; the ignored ones are named.
 */
import { runCli } from '@mce/client';
import { loadDotenvOf } from './dotenv.js';
import { readLegacyEnv } from './env.js';
import type { LegacyCliIO } from './cli.js';

/** The `mce` arguments for the environment, and the mce variables to set. */
export function serverInvocation(env: NodeJS.ProcessEnv, extraArgs: readonly string[] = []): { argv: string[]; mapped: Record<string, string>; ignored: string[] } {
  const legacy = readLegacyEnv(env);
  return { argv: ['serve', '--host', legacy.host ?? '127.0.0.1', '--port', String(legacy.port ?? 8000), ...extraArgs], mapped: legacy.mapped, ignored: legacy.ignored };
}

export async function legacyServer(argv: readonly string[], io: LegacyCliIO & { env: NodeJS.ProcessEnv }): Promise<number> {
  let invocation;
  try {
    loadDotenvOf(io.cwd, io.env);
    invocation = serverInvocation(io.env, argv);
  } catch (error) {
    io.stderr.write(`mce-server: ${(error as Error).message}\n`);
    return 2;
  }
  // The judge is built from the process environment at first use: the old names go in under the new ones first.
  Object.assign(io.env, invocation.mapped);
  for (const name of Object.keys(invocation.mapped)) io.stderr.write(`mce-server: ${name} set from its telemetry-hub name\n`);
  return runCli(invocation.argv, { ...io, stdout: io.stdout as NodeJS.WriteStream, stderr: io.stderr as NodeJS.WriteStream });
}
