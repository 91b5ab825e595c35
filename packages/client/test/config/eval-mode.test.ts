/** The persisted eval mode in the user config file (`mce set-eval-mode`). */
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { persistedEvalMode, setPersistedEvalMode } from '@mce/provider-native';
import {
  currentEvalMode,
  loadPersistedEvalMode,
  readPersistedEvalMode,
  userConfigDir,
  userConfigPath,
  writePersistedEvalMode,
} from '../../src/config/eval-mode.js';
import { ConfigError } from '../../src/config/mce-config.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'mce-eval-mode-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  setPersistedEvalMode(undefined);
});

describe('user config location', () => {
  it('MCE_CONFIG_HOME, else XDG_CONFIG_HOME/mce, else ~/.config/mce', () => {
    expect(userConfigPath({ MCE_CONFIG_HOME: '/a/b', XDG_CONFIG_HOME: '/x' })).toBe('/a/b/config.yaml');
    expect(userConfigPath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/mce/config.yaml');
    expect(userConfigDir({})).toMatch(/\.config\/mce$/);
  });
});

describe('read / write', () => {
  it('no file or no key → undefined; written modes read back; other keys and comments are kept', () => {
    const path = join(tmp(), 'nested', 'config.yaml');
    expect(readPersistedEvalMode(path)).toBeUndefined();
    expect(writePersistedEvalMode(path, 'hybrid')).toBe('hybrid');
    expect(readPersistedEvalMode(path)).toBe('hybrid');
    writeFileSync(path, '# my settings\ntheme: dark\neval_mode: llm\n');
    writePersistedEvalMode(path, 'system-one');
    expect(readFileSync(path, 'utf8')).toBe('# my settings\ntheme: dark\neval_mode: system_one\n');
    expect(readPersistedEvalMode(path)).toBe('system_one');
  });

  it('rejects invalid modes and never overwrites an invalid file', () => {
    const path = join(tmp(), 'config.yaml');
    expect(() => writePersistedEvalMode(path, 'fast')).toThrow('set-eval-mode: eval mode "fast" is not one of llm, hybrid, system_one');
    writeFileSync(path, 'eval_mode: turbo\n');
    expect(() => readPersistedEvalMode(path)).toThrow(`${path}: eval_mode: eval mode "turbo"`);
    writeFileSync(path, 'a: [unclosed\n');
    expect(() => writePersistedEvalMode(path, 'llm')).toThrow(/invalid YAML, not overwritten/);
    expect(readFileSync(path, 'utf8')).toBe('a: [unclosed\n');
  });
});

describe('the file itself', () => {
  it('keeps its permissions and writes through a symlink; a file that is no mapping is a ConfigError naming it', () => {
    const dir = tmp();
    const real = join(dir, 'real.yaml');
    const link = join(dir, 'config.yaml');
    writeFileSync(real, 'theme: dark\n', { mode: 0o600 });
    symlinkSync(real, link);
    writePersistedEvalMode(link, 'hybrid');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('theme: dark\neval_mode: hybrid\n');
    expect(statSync(real).mode & 0o777).toBe(0o600);
    writeFileSync(real, '- a\n- b\n');
    const error = (() => {
      try {
        readPersistedEvalMode(link);
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.message).toContain(`${link}: (root): must be a mapping`);
  });
});

describe('current mode (what `mce set-eval-mode` prints) and loading it for the metrics', () => {
  it('reports the mode and its source', () => {
    const home = tmp();
    const env = { MCE_CONFIG_HOME: home };
    expect(currentEvalMode(env)).toEqual({ mode: 'llm', source: 'default', path: join(home, 'config.yaml') });
    writePersistedEvalMode(userConfigPath(env), 'hybrid');
    expect(currentEvalMode(env)).toMatchObject({ mode: 'hybrid', source: 'user-config' });
    expect(currentEvalMode({ ...env, MCE_EVAL_MODE: 'system_one' })).toMatchObject({ mode: 'system_one', source: 'env' });
  });

  it('loadPersistedEvalMode hands the mode to the MCP metrics of the process', () => {
    const path = join(tmp(), 'config.yaml');
    writePersistedEvalMode(path, 'system_one');
    expect(loadPersistedEvalMode(path)).toBe('system_one');
    expect(persistedEvalMode()).toBe('system_one');
  });
});
