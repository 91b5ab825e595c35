import { describe, expect, it } from 'vitest';
import { STRATEGY_NAMES } from '@mce/core';
import { ConfigError, EnvError, MCE_CONFIG_SCHEMA, MCEClientConfig, checkPriceRefreshEnv, parseMceConfig, defaultMceConfig } from '../../src/config/index.js';
import { storeTargetFromEnv } from '../../../store/src/index.js';

describe('mce_config.yaml', () => {
  it('reads engine, cache, metrics per scope and inline metric options', () => {
    const config = parseMceConfig(
      [
        'engine:',
        '  max_workers: 4',
        '  execution_strategy: hybrid',
        '  metric_timeout_ms: 60000',
        'cache:',
        '  path: null',
        '  read: true',
        '  write: false',
        'metrics:',
        '  Session:',
        '    - Duration',
        '    - name: MCPUse',
        '      threshold: 0.7',
        '      eval_mode: hybrid',
        '  LLMCall: [Cost]',
        'metric_options:',
        '  MCPUse: { strict_mode: true }',
      ].join('\n'),
    );
    expect(config.engine).toEqual({ maxWorkers: 4, strategy: 'hybrid', recursive: true, metricTimeoutMs: 60_000 });
    expect(config.cache).toEqual({ path: null, read: true, write: false, enabled: true });
    expect(config.metrics).toEqual({ Session: ['Duration', 'MCPUse'], LLMCall: ['Cost'] });
    expect(config.metricOptions).toEqual({ MCPUse: { strict_mode: true, threshold: 0.7, eval_mode: 'hybrid' } });
  });

  it('names the file, line and field of every problem', () => {
    const text = ['engine:', '  max_workers: 0', '  execution_strategy: fibers', 'metrics:', '  Sesion: [Duration]'].join('\n');
    let error: unknown;
    try {
      parseMceConfig(text, 'conf/mce_config.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toContainEqual({ line: 2, field: 'engine.max_workers', message: 'must be >= 1' });
    expect(problems).toContainEqual({
      line: 3,
      field: 'engine.execution_strategy',
      message: 'must be one of asyncio, thread, process, hybrid',
    });
    expect(problems).toContainEqual({ line: 5, field: 'metrics.Sesion', message: 'unknown field "Sesion"' });
    expect((error as Error).message).toContain('conf/mce_config.yaml:2: engine.max_workers');
  });

  it('offers exactly the strategies the engine knows', () => {
    const engine = (MCE_CONFIG_SCHEMA.properties as Record<string, { properties: Record<string, { enum?: unknown[] }> }>).engine;
    expect(engine?.properties.execution_strategy?.enum).toEqual([...STRATEGY_NAMES]);
  });

  it('reports YAML syntax errors with their line', () => {
    expect(() => parseMceConfig('engine:\n  max_workers: [1,\n', 'x.yaml')).toThrow(/x\.yaml:\d+: \(yaml\)/);
  });

  it('rejects a threshold outside [0, 1] and an unknown eval mode', () => {
    expect(() => parseMceConfig('metric_options:\n  MCPUse:\n    threshold: 2\n')).toThrow(/metric_options\.MCPUse\.threshold: must be <= 1/);
    expect(() => parseMceConfig('metric_options:\n  MCPUse:\n    eval_mode: fast\n')).toThrow(/eval_mode: must be one of llm, hybrid, system_one/);
  });
});

describe('MCEClientConfig.fromEnv', () => {
  it('reads the seed variables, Neo4j names first then KG_DB_* ones', () => {
    const c = MCEClientConfig.fromEnv({
      KG_DB_HOST: 'bolt://kg:7687',
      NEO4J_USERNAME: 'neo',
      KG_DB_PASSWORD: 'pw',
      MCE_ENGINE_MAX_WORKERS: '8',
      MCE_ENGINE_STRATEGY: 'thread',
      MCE_JUDGE_SAMPLES: '3',
      MCE_JUDGE_TEMPERATURE: '0.5',
      MCE_JUDGE_LOGPROBS: 'false',
      MCE_METRIC_CACHE: 'off',
      MCE_METRIC_TIMEOUT_MS: '45000',
    });
    expect(c.storeUrl).toBe('bolt://kg:7687');
    expect(c.neo4j).toEqual({ uri: 'bolt://kg:7687', username: 'neo', password: 'pw', database: undefined });
    expect([c.engineMaxWorkers, c.engineStrategy, c.judgeSamples, c.judgeTemperature, c.judgeLogprobs]).toEqual([8, 'thread', 3, 0.5, false]);
    const applied = c.applyTo(defaultMceConfig());
    expect(applied.engine).toEqual({ recursive: true, maxWorkers: 8, strategy: 'thread', metricTimeoutMs: 45_000 });
    expect(applied.cache.enabled).toBe(false);
    expect(applied.store.url).toBe('bolt://kg:7687');
  });

  it('a bare KG_DB_HOST becomes a bolt:// store URL, which the store selection reads with the KG_DB credentials', () => {
    const env = { KG_DB_HOST: 'graph:7687', KG_DB_USER: 'neo', KG_DB_PASSWORD: 'pw' };
    const c = MCEClientConfig.fromEnv(env);
    expect(c.storeUrl).toBe('bolt://graph:7687');
    // What MCEClient.open resolves the configured URL with.
    expect(storeTargetFromEnv({ ...env, MCE_STORE_URL: c.applyTo(defaultMceConfig()).store.url })).toEqual({
      kind: 'neo4j',
      url: 'bolt://graph:7687',
      username: 'neo',
      password: 'pw',
    });
  });

  it('MCE_STORE_URL wins over NEO4J_URI; a cache path turns the cache on at that path', () => {
    const c = MCEClientConfig.fromEnv({ MCE_STORE_URL: 'postgres://x/y', NEO4J_URI: 'neo4j://a', MCE_METRIC_CACHE: '/tmp/c.db' });
    expect(c.storeUrl).toBe('postgres://x/y');
    expect(c.applyTo(defaultMceConfig()).cache).toEqual({ path: '/tmp/c.db', read: true, write: true, enabled: true });
  });

  it('MCE_METRIC_CACHE=none or disabled turns the cache off rather than naming a file', () => {
    for (const value of ['none', 'Disabled', 'off']) {
      expect(MCEClientConfig.fromEnv({ MCE_METRIC_CACHE: value }).applyTo(defaultMceConfig()).cache.enabled, value).toBe(false);
    }
  });

  it('names the variable of a bad value', () => {
    expect(() => MCEClientConfig.fromEnv({ MCE_ENGINE_STRATEGY: 'fibers' })).toThrow(/MCE_ENGINE_STRATEGY: expected one of/);
    expect(() => MCEClientConfig.fromEnv({ MCE_JUDGE_SAMPLES: '0' })).toThrow(/MCE_JUDGE_SAMPLES: expected an integer ≥ 1/);
  });

  it('reads the engine variables as the engine does, a bad value being an EnvError', () => {
    expect(MCEClientConfig.fromEnv({ MCE_ENGINE_STRATEGY: ' Process ', MCE_ENGINE_MAX_WORKERS: ' 3 ' })).toMatchObject({
      engineStrategy: 'process',
      engineMaxWorkers: 3,
    });
    const strategy = new EnvError('MCE_ENGINE_STRATEGY', 'expected one of asyncio, thread, process, hybrid, got "fibers"');
    expect(() => MCEClientConfig.fromEnv({ MCE_ENGINE_STRATEGY: 'fibers' })).toThrow(strategy);
    expect(() => MCEClientConfig.fromEnv({ MCE_ENGINE_STRATEGY: 'fibers' })).toThrow(EnvError);
    expect(() => checkPriceRefreshEnv({ MODEL_PRICES_TTL_SECONDS: 'abc' })).toThrow(
      'environment variable MODEL_PRICES_TTL_SECONDS: expected a number >= 0.001, got "abc"',
    );
    expect(() => checkPriceRefreshEnv({ MODEL_PRICES_REFRESH: 'maybe' })).toThrow(/^environment variable MODEL_PRICES_REFRESH: /);
    expect(() => checkPriceRefreshEnv({})).not.toThrow();
    expect(() => MCEClientConfig.fromEnv({ MCE_METRIC_TIMEOUT_MS: '30s' })).toThrow(
      'environment variable MCE_METRIC_TIMEOUT_MS: expected a whole number of milliseconds from 1 to 2147483647, got "30s"',
    );
    expect(() => MCEClientConfig.fromEnv({ MCE_ENGINE_MAX_WORKERS: '0' })).toThrow(
      'environment variable MCE_ENGINE_MAX_WORKERS: expected an integer from 1 to 1024, got "0"',
    );
  });
});

describe('MCP metric options', () => {
  it('accepts System One weights and model ids, and rejects malformed ones', () => {
    const ok = parseMceConfig('metric_options:\n  MCPUse:\n    system_one_model: endpoint:gpt-4o-mini\n    system_one_weights: [1, 2, 1]\n');
    expect(ok.metricOptions.MCPUse).toEqual({ system_one_model: 'endpoint:gpt-4o-mini', system_one_weights: [1, 2, 1] });
    expect(() => parseMceConfig('metric_options:\n  MCPUse:\n    system_one_model: jev\n')).toThrow(/system_one_model: must match pattern/);
    expect(() => parseMceConfig('metric_options:\n  MCPUse:\n    system_one_weights: [1, 2]\n')).toThrow(/system_one_weights/);
  });
});

describe('inline metric options', () => {
  it('refuse two values of one option for one metric in two scopes (options are per metric), at the second line', () => {
    const text = 'metrics:\n  Session:\n    - name: Duration\n      threshold: 0.2\n  AgentCall:\n    - name: Duration\n      threshold: 0.9\n';
    expect(() => parseMceConfig(text, 'c.yaml')).toThrow(
      'c.yaml:6: metrics.AgentCall.0.threshold: Duration has threshold 0.2 at Session already: options are per metric, not per scope',
    );
    const same = parseMceConfig(text.replace('0.9', '0.2'), 'c.yaml');
    expect(same.metricOptions.Duration).toEqual({ threshold: 0.2 });
    // Equal values are compared as values: the same list written twice is no conflict.
    const lists = 'metrics:\n  Session:\n    - name: MCPUse\n      system_one_weights: [2, 1, 1]\n  AgentCall:\n    - name: MCPUse\n      system_one_weights: [2, 1, 1]\n';
    expect(parseMceConfig(lists, 'c.yaml').metricOptions.MCPUse).toEqual({ system_one_weights: [2, 1, 1] });
  });
});

describe('hostile YAML', () => {
  it('a file of aliases expanded past the limit is a ConfigError naming the file', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) lines.push(`${'abcdefghij'[i]}: &${'abcdefghij'[i]} [${Array(10).fill(`*${'abcdefghij'[i - 1]}`).join(', ')}]`);
    expect(() => parseMceConfig(`${lines.join('\n')}\n`, 'bomb.yaml')).toThrow(ConfigError);
    expect(() => parseMceConfig(`${lines.join('\n')}\n`, 'bomb.yaml')).toThrow(/^bomb\.yaml: invalid configuration\n {2}bomb\.yaml:1: \(yaml\): /);
  });
});

describe('store.url', () => {
  it('is checked when the file is read, at its line', () => {
    expect(() => parseMceConfig('engine:\n  recursive: true\nstore:\n  url: "sqlite:"\n', 's.yaml')).toThrow(
      's.yaml:4: store.url: store URL "sqlite:" names no file: use sqlite:PATH',
    );
    expect(parseMceConfig('store:\n  url: sqlite:kg.db\n', 's.yaml').store.url).toBe('sqlite:kg.db');
  });
});
