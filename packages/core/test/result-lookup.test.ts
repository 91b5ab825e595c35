import { describe, expect, it } from 'vitest';
import { SessionResultLookup } from '../src/engine/result-lookup.js';
import type { OntologyLevel } from '../src/ontology/types.js';
import { resultRecord } from './helpers/records.js';

const record = (level: OntologyLevel, measures: string, result: number) =>
  resultRecord({ id: `${level}-${measures}`, name: 'Dur', provider: 'p', level, measures, result, unit: 'ms', timestamp: '2025-01-01T00:00:00.000Z' });

describe('SessionResultLookup', () => {
  it('an id two levels share: without a level the first in task order wins; with one, that level\'s', () => {
    // A session and its implicit MAS call share the id s1; the Session task ran first.
    const lookup = new SessionResultLookup('s1');
    lookup.add('p:Dur', [record('Session', 's1', 10)]);
    lookup.add('p:Dur', [record('MASCall', 's1', 20)]);
    expect(lookup.get('p:Dur', 's1')).toMatchObject({ result: 10, measures: { level: 'Session', id: 's1' } });
    expect(lookup.get('p:Dur', 's1', 'MASCall')).toMatchObject({ result: 20, measures: { level: 'MASCall', id: 's1' } });
    expect(lookup.get('p:Dur', 's1', 'Session')).toMatchObject({ result: 10, measures: { level: 'Session', id: 's1' } });
    expect(lookup.all('p:Dur').map((r) => r.result)).toEqual([10, 20]);
  });
});
