import { describe, expect, it } from 'vitest';
import { bodyBytes, messageKey, parseMessage, runIdFor } from '@mce/worker';

describe('parseMessage', () => {
  it('accepts {"session_id"} and {"session_ids"} as bytes, text or an already parsed body', () => {
    expect(parseMessage(Buffer.from('{"session_id":"s1"}'))).toEqual({ ok: true, sessionIds: ['s1'] });
    expect(parseMessage('{"session_ids":["a","b","a"]}')).toEqual({ ok: true, sessionIds: ['a', 'b'] });
    expect(parseMessage({ session_id: 'x' })).toEqual({ ok: true, sessionIds: ['x'] });
  });

  it('says what is wrong with a malformed body', () => {
    expect(parseMessage(Buffer.from('not json'))).toEqual({ ok: false, error: 'body is not JSON: not json' });
    expect(parseMessage([1])).toEqual({ ok: false, error: 'body must be a JSON object with "session_id" or "session_ids"' });
    expect(parseMessage({ session_id: '' })).toEqual({ ok: false, error: '"session_id" must be a non-empty string without NUL characters' });
    expect(parseMessage({ session_id: 'bad\u0000id' })).toEqual({ ok: false, error: '"session_id" must be a non-empty string without NUL characters' });
    const listError = '"session_ids" must be a non-empty array of non-empty strings without NUL characters';
    expect(parseMessage({ session_ids: [] })).toEqual({ ok: false, error: listError });
    expect(parseMessage({ session_ids: ['a', 3] })).toEqual({ ok: false, error: listError });
    expect(parseMessage(Buffer.from('{"session_ids":["a","b\\u0000"]}'))).toEqual({ ok: false, error: listError });
    expect(parseMessage({ sessionId: 'a' })).toEqual({ ok: false, error: 'body has neither "session_id" nor "session_ids"' });
    expect(parseMessage({ session_id: 'a', session_ids: ['b'] })).toEqual({ ok: false, error: 'body has both "session_id" and "session_ids"' });
  });
});

// The expected values are pinned literals, not recomputed here: stable run ids are the contract (a redelivered or
// retried message must overwrite its results), so any change to how keys or run ids are derived must fail this test.
describe('message key and run id', () => {
  it('uses the message id when there is one, else the sha256 of the body', () => {
    expect(messageKey('m-1', Buffer.from('{}'))).toBe('m-1');
    const key = 'sha256:03f4c24ef18ee871729529ef968ca8401ee841018a090b3f674fc7e709831df1';
    expect(messageKey(undefined, Buffer.from('{"session_id":"s1"}'))).toBe(key);
    expect(messageKey(undefined, '{"session_id":"s1"}')).toBe(key);
    expect(messageKey('', { session_id: 's1' })).toBe(key);
  });

  it('derives one stable run id per (message, session)', () => {
    const expected = '29f82d66e9d84b89d804b2e357cfaf17';
    expect(runIdFor('m-1', 's1')).toBe(expected);
    expect(runIdFor('m-1', 's1')).toHaveLength(32);
    expect(runIdFor('m-1', 's2')).not.toBe(expected);
    expect(runIdFor('m-2', 's1')).not.toBe(expected);
  });
});

describe('bodyBytes', () => {
  it('writes a body back as the bytes of its content type: a JSON string keeps its quotes, text does not', () => {
    expect(bodyBytes('known-1', 'application/json').toString()).toBe('"known-1"');
    expect(bodyBytes('known-1', 'text/plain').toString()).toBe('known-1');
    expect(bodyBytes({ session_id: 'a' }, 'application/json').toString()).toBe('{"session_id":"a"}');
    const raw = Buffer.from('{ "session_id" : "a" }');
    expect(bodyBytes(raw, 'application/json')).toBe(raw);
  });
});
