import type { ResultRecord } from '../../src/index.js';

/** A ResultRecord of a deterministic metric (no judge usage), with the fields a test names. */
export function resultRecord(fields: Pick<ResultRecord, 'id' | 'name' | 'provider' | 'level' | 'measures' | 'result' | 'unit' | 'timestamp'>): ResultRecord {
  return {
    ...fields,
    reasoning: '',
    evaluationModel: null,
    evaluationPromptTokenCount: 0,
    evaluationCompletionTokenCount: 0,
    evaluationTotalTokenCount: 0,
    evaluationCost: 0,
  };
}
