/** The receiver: section of mce_config.yaml and MCE_RECEIVER_SESSION_IDLE_MS: defaults, values, errors naming the place. */
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultMceConfig, parseMceConfig } from '../../src/config/index.js';
import { DEFAULT_RECEIVER_SETTINGS, receiverSettings } from '../../src/receiver/settings.js';

describe('receiver settings', () => {
  it('defaults without a receiver section', () => {
    expect(receiverSettings(defaultMceConfig(), {})).toEqual(DEFAULT_RECEIVER_SETTINGS);
  });

  it('reads the section, and the environment over the file', () => {
    const config = parseMceConfig(
      ['receiver:', '  session_idle_ms: 5000', '  complete_on_root: false', '  max_body_mb: 0.5', '  max_buffered_spans: 1000', '  retry_after_s: 7', '  evaluate: queue', '  export_otlp:', '    enabled: true', '    endpoint: http://collector:4318/v1/logs', ''].join('\n'),
    );
    expect(receiverSettings(config, {})).toEqual({
      sessionIdleMs: 5000,
      completeOnRoot: false,
      maxBodyBytes: 524_288,
      maxBufferedSpans: 1000,
      retryAfterSeconds: 7,
      evaluate: 'queue',
      exportOtlp: { enabled: true, endpoint: 'http://collector:4318/v1/logs' },
    });
    expect(receiverSettings(config, { MCE_RECEIVER_SESSION_IDLE_MS: '250' }).sessionIdleMs).toBe(250);
  });

  it('a bad value names the file, line and field', () => {
    const text = ['store:', '  url: sqlite:x.db', 'receiver:', '  session_idle_ms: -1', '  evaluate: sometimes', '  idle: 3', ''].join('\n');
    const error = (() => {
      try {
        parseMceConfig(text, 'mce_config.yaml');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      { line: 6, field: 'receiver.idle', message: 'unknown field "idle"' },
      { line: 4, field: 'receiver.session_idle_ms', message: 'must be >= 1' },
      { line: 5, field: 'receiver.evaluate', message: 'must be one of in-process, queue, none' },
    ]);
  });

  it('a bad MCE_RECEIVER_SESSION_IDLE_MS names the variable', () => {
    expect(() => receiverSettings(defaultMceConfig(), { MCE_RECEIVER_SESSION_IDLE_MS: '30s' })).toThrow(
      'environment variable MCE_RECEIVER_SESSION_IDLE_MS: expected a positive whole number of milliseconds, got "30s"',
    );
  });
});
