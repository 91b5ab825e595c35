/**
 * The user's persisted eval mode for the MCP metrics (`mce set-eval-mode`), in the user config file:
 * `$MCE_CONFIG_HOME/config.yaml`, else `$XDG_CONFIG_HOME/mce/config.yaml`, else `~/.config/mce/config.yaml`,
 * under the key `eval_mode`. Other keys and comments in the file are kept when writing.
 */
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { yaml } from '../lazy.js';
import {
  EVAL_MODE_ENV,
  parseEvalMode,
  resolveEvalMode,
  setPersistedEvalMode,
  type EvalMode,
  type ResolvedEvalMode,
} from '@mce/provider-native';
import { ConfigError } from './mce-config.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The directory of the user's mce config. */
export function userConfigDir(env: Env = process.env): string {
  if (env.MCE_CONFIG_HOME?.trim()) return env.MCE_CONFIG_HOME.trim();
  const xdg = env.XDG_CONFIG_HOME?.trim();
  return join(xdg || join(homedir(), '.config'), 'mce');
}

export function userConfigPath(env: Env = process.env): string {
  return join(userConfigDir(env), 'config.yaml');
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The persisted mode, or undefined when the file or the key is absent; an invalid value throws naming the file. */
export function readPersistedEvalMode(path: string = userConfigPath()): EvalMode | undefined {
  // Problems of the file are bad input (exit 2 in the CLI), named by the file.
  const bad = (field: string, message: string) => new ConfigError(path, [{ field, message }]);
  const text = readText(path);
  if (text === undefined) return undefined;
  const doc = yaml().parseDocument(text);
  if (doc.errors.length) throw bad('(yaml)', doc.errors[0]?.message.split('\n')[0] ?? 'invalid YAML');
  const root: unknown = doc.toJS();
  if (root === null || root === undefined) return undefined;
  if (typeof root !== 'object' || Array.isArray(root)) throw bad('(root)', 'must be a mapping');
  const value: unknown = (root as Record<string, unknown>).eval_mode;
  if (value === undefined || value === null || value === '') return undefined;
  try {
    return parseEvalMode(value, 'eval_mode');
  } catch (error) {
    throw bad('eval_mode', (error as Error).message.replace(/^eval_mode: /, ''));
  }
}

/** Persists `mode` (validated) in the user config file, creating it and its directory when needed. */
export function writePersistedEvalMode(path: string, mode: string): EvalMode {
  const valid = parseEvalMode(mode, 'set-eval-mode');
  const text = readText(path);
  const { Document, parseDocument } = yaml();
  const parsed = text?.trim() ? parseDocument(text) : undefined;
  if (parsed?.errors.length) throw new Error(`${path}: invalid YAML, not overwritten: ${parsed.errors[0]?.message ?? ''}`);
  const doc = parsed && parsed.contents !== null ? parsed : new Document({});
  doc.set('eval_mode', valid);
  // Through a symlinked config file to the file itself, keeping its permissions (a 0600 file stays 0600).
  const target = text === undefined ? path : realpathSync(path);
  const permissions = text === undefined ? undefined : statSync(target).mode & 0o777;
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, doc.toString(), permissions === undefined ? {} : { mode: permissions });
    if (permissions !== undefined) chmodSync(tmp, permissions); // the process umask may have narrowed it
    renameSync(tmp, target); // atomic: a reader never sees half a file
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  return valid;
}

/**
 * The mode the MCP metrics use when their own `eval_mode` is not set, and where it comes from
 * (`env` = MCE_EVAL_MODE, `user-config` = the file, `default` = llm): what `mce set-eval-mode` prints.
 */
export function currentEvalMode(env: Env = process.env, path: string = userConfigPath(env)): ResolvedEvalMode & { path: string } {
  return { ...resolveEvalMode({ env: env[EVAL_MODE_ENV], persisted: readPersistedEvalMode(path) }), path };
}

/** Reads the persisted mode and hands it to the MCP metrics of this process (call once at start-up). */
export function loadPersistedEvalMode(path: string = userConfigPath()): EvalMode | undefined {
  const mode = readPersistedEvalMode(path);
  setPersistedEvalMode(mode);
  return mode;
}
