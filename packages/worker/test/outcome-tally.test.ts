/** Each message counted once when its outcome is settled, whatever a broker cut redelivered. */
import { describe, expect, it } from 'vitest';
import { OutcomeTally } from '../src/outcome-tally.js';

describe('OutcomeTally', () => {
  it('counts a delivery acked on its own, open connection', () => {
    const tally = new OutcomeTally();
    tally.connected();
    expect(tally.counts({ key: 'a', fresh: true, connection: tally.current() })).toBe(true);
  });

  it('does not count a delivery of a lost or replaced connection (its ack fails; the redelivery counts)', () => {
    const tally = new OutcomeTally();
    tally.connected();
    const stamp = { key: 'a', fresh: true, connection: tally.current() };
    tally.lost();
    expect(tally.counts(stamp)).toBe(false);
    tally.connected();
    expect(tally.counts(stamp)).toBe(false);
    expect(tally.counts({ key: 'a', fresh: false, connection: tally.current() })).toBe(true);
  });

  it('does not count again a redelivery (or retry copy) of a message counted before its ack was lost', () => {
    const tally = new OutcomeTally();
    tally.connected();
    expect(tally.counts({ key: 'a', fresh: true, connection: tally.current() })).toBe(true);
    tally.lost();
    tally.connected();
    expect(tally.counts({ key: 'a', fresh: false, connection: tally.current() })).toBe(false);
    expect(tally.counts({ key: 'b', fresh: false, connection: tally.current() })).toBe(true);
  });

  it('counts a fresh message under a key seen before: a producer sent it twice', () => {
    const tally = new OutcomeTally();
    tally.connected();
    const stamp = { key: 'a', fresh: true, connection: tally.current() };
    expect(tally.counts(stamp)).toBe(true);
    expect(tally.counts(stamp)).toBe(true);
  });

  it('remembers a bounded number of keys, the oldest forgotten first', () => {
    const tally = new OutcomeTally(2);
    tally.connected();
    const at = (key: string, fresh: boolean) => ({ key, fresh, connection: tally.current() });
    for (const key of ['a', 'b', 'c']) tally.counts(at(key, true));
    expect(tally.counts(at('a', false))).toBe(true); // forgotten
    expect(tally.counts(at('c', false))).toBe(false);
  });
});
