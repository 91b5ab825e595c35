/** The old commands read `.env` of the working directory first (python-dotenv's `load_dotenv()`); set variables win. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { config } from 'dotenv';

/** Loads `<cwd>/.env` into `env` without overriding; returns the file read, if any. */
export function loadDotenvOf(cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  const path = join(cwd, '.env');
  if (!existsSync(path)) return undefined;
  const loaded = config({ path, processEnv: env as Record<string, string>, quiet: true, override: false });
  if (loaded.error) throw new Error(`${path}: ${loaded.error.message}`);
  return path;
}
