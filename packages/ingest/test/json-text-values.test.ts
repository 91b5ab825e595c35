/** Attribute values that may hold JSON text: parsed when they are JSON, kept as written when not (never a throw). */
import { describe, expect, it } from 'vitest';
import { parseJsonMaybe, parseJsonOrPython } from '../src/messages.js';

describe('parseJsonMaybe', () => {
  it('parses objects, lists and strings written as JSON, blank space around them or not', () => {
    expect(parseJsonMaybe('{"query": "zip codes"}')).toEqual({ query: 'zip codes' });
    expect(parseJsonMaybe(' \n{ "a": [1, 2] }')).toEqual({ a: [1, 2] });
    expect(parseJsonMaybe('{ }')).toEqual({});
    expect(parseJsonMaybe('[{"a": 1}]')).toEqual([{ a: 1 }]);
    expect(parseJsonMaybe('"quoted"')).toBe('quoted');
  });

  it('keeps text that is no JSON as it is: a Python dict, a cut object, plain text', () => {
    for (const text of ["{'query': 'USGS nonnative species'}", '{ query: 1 }', '{', '{"a": ', 'plain text', '']) expect(parseJsonMaybe(text)).toBe(text);
    expect(parseJsonMaybe(42)).toBe(42);
  });

  it('leaves a Python dict to parseJsonOrPython, which reads it', () => {
    expect(parseJsonOrPython("{'query': 'USGS nonnative species', 'limit': None}")).toEqual({ query: 'USGS nonnative species', limit: null });
  });
});
