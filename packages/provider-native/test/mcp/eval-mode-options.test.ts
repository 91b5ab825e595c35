/** Eval-mode resolution (a pure function) and the MCP metric options. */
import { describe, expect, it } from 'vitest';
import { LocalSystemOne, createMCPUse, systemOneModelFor, parseEvalMode, parseMcpOptions, persistedEvalMode, resolveEvalMode, setPersistedEvalMode } from '@mce/provider-native';

describe('resolveEvalMode', () => {
  it('metric option > MCE_EVAL_MODE > persisted > llm, with the source', () => {
    expect(resolveEvalMode({ metricOption: 'hybrid', env: 'system_one', persisted: 'llm' })).toEqual({ mode: 'hybrid', source: 'metric' });
    expect(resolveEvalMode({ env: 'system_one', persisted: 'hybrid' })).toEqual({ mode: 'system_one', source: 'env' });
    expect(resolveEvalMode({ persisted: 'hybrid' })).toEqual({ mode: 'hybrid', source: 'user-config' });
    expect(resolveEvalMode({})).toEqual({ mode: 'llm', source: 'default' });
  });
  it('treats empty values as unset and accepts other spellings', () => {
    expect(resolveEvalMode({ metricOption: null, env: '  ', persisted: 'System-One' })).toEqual({ mode: 'system_one', source: 'user-config' });
    expect(parseEvalMode(' LLM ', 'x')).toBe('llm');
  });
  it('throws naming the origin of an invalid value', () => {
    expect(() => resolveEvalMode({ env: 'fast' })).toThrow('MCE_EVAL_MODE: eval mode "fast" is not one of llm, hybrid, system_one');
    expect(() => resolveEvalMode({ persisted: 'x' })).toThrow(/^user config eval_mode/);
    expect(() => resolveEvalMode({ metricOption: 3 })).toThrow(/^eval_mode option: eval mode 3/);
  });
});

describe('the process-wide persisted mode', () => {
  it('is exported to the environment, so worker threads and child processes started later inherit it', () => {
    try {
      setPersistedEvalMode('hybrid');
      expect(process.env.MCE_PERSISTED_EVAL_MODE).toBe('hybrid');
      setPersistedEvalMode(undefined);
      expect(process.env.MCE_PERSISTED_EVAL_MODE).toBeUndefined();
      expect(persistedEvalMode()).toBeUndefined();
      process.env.MCE_PERSISTED_EVAL_MODE = 'system_one'; // as a worker thread inherits it
      expect(persistedEvalMode()).toBe('system_one');
      process.env.MCE_PERSISTED_EVAL_MODE = 'nonsense';
      expect(persistedEvalMode()).toBeUndefined();
    } finally {
      setPersistedEvalMode(undefined);
    }
  });
});

describe('parseMcpOptions', () => {
  it('has the documented defaults', () => {
    expect(parseMcpOptions({})).toEqual({
      threshold: 0.5,
      includeReason: true,
      strictMode: false,
      asyncMode: true,
      verboseMode: false,
      flaky: false,
      systemOneModel: 'jev-latest',
      weights: { primitives: 1 / 3, arguments: 1 / 3, task: 1 / 3 },
    });
  });
  it('system_one_model accepts the seed default jev-latest, local and endpoint names', () => {
    expect(parseMcpOptions({ system_one_model: 'jev-latest' }).systemOneModel).toBe('jev-latest');
    expect(parseMcpOptions({ system_one_model: 'local' }).systemOneModel).toBe('local');
    expect(parseMcpOptions({ system_one_model: 'endpoint:gpt-4o-mini' }).systemOneModel).toBe('endpoint:gpt-4o-mini');
    const judge = () => {
      throw new Error('the local model needs no judge');
    };
    expect(systemOneModelFor('jev-latest', judge)).toBe(systemOneModelFor('local', judge));
    expect(systemOneModelFor('jev-latest', judge)).toBeInstanceOf(LocalSystemOne);
    expect(systemOneModelFor('endpoint:gpt-4o-mini', judge).id).toBe('endpoint:gpt-4o-mini');
    expect(() => systemOneModelFor('jev-2', judge)).toThrow('system_one_model "jev-2": expected "jev-latest" (or "local"), or "endpoint:<model>"');
  });
  it('reads snake_case and camelCase, later sources winning', () => {
    const o = parseMcpOptions(
      { threshold: 0.7, systemOneModel: 'endpoint:m', includeReason: false },
      { threshold: null, verbose_mode: true, eval_mode: 'hybrid', model: 'gpt-4o-mini' },
    );
    expect(o).toMatchObject({ threshold: null, systemOneModel: 'endpoint:m', includeReason: false, verboseMode: true, evalMode: 'hybrid', model: 'gpt-4o-mini' });
  });
  it('rejects bad values naming them', () => {
    expect(() => parseMcpOptions({ threshold: -1 })).toThrow(/threshold/);
    expect(() => parseMcpOptions({ async_mode: 'yes' })).toThrow(/async_mode/);
    expect(() => parseMcpOptions({ system_one_model: 'endpoint:' })).toThrow('system_one_model: expected "jev-latest" (or "local"), or "endpoint:<model>"');
    expect(() => parseMcpOptions({ system_one_model: 'jev-1' })).toThrow(/system_one_model/);
    expect(() => parseMcpOptions({ system_one_weights: [0, 0, 0] })).toThrow(/must not all be 0/);
  });
  it('rejects an option no MCP metric reads, naming it and the likely one (also nested, and at construction)', () => {
    expect(() => parseMcpOptions({ treshold: 0.9, strictMod: true })).toThrow(
      'invalid MCP metric options: no option "treshold" (did you mean "threshold"?); no option "strict_mod" (did you mean "strict_mode"?); the options are threshold, model, include_reason, strict_mode, async_mode, verbose_mode, flaky, system_one_model, eval_mode, system_one_weights',
    );
    expect(() => parseMcpOptions({ system_one_weights: { primitive: 2, task: 1 } })).toThrow(/system_one_weights.*primitive/);
    expect(() => createMCPUse({ options: { treshold: 0.9 } })).toThrow(/no option "treshold" \(did you mean "threshold"\?\)/);
  });
});
