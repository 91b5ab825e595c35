/**
 * Agreement of a System One model with the labelled set: good/bad accuracy per question, the answer's value ≥ 0.5
 * against a label of level 2 or 3 ("mostly yes", "yes").
 */
import type { LabelledTurn } from './labelled-set.js';
import type { SystemOneQuestion, SystemOneModel } from './types.js';
import { SYSTEM_ONE_QUESTIONS } from './types.js';

export interface Agreement {
  turns: number;
  perQuestion: Record<SystemOneQuestion, { correct: number; total: number; accuracy: number }>;
  /** Over every (turn, question) pair. */
  overall: number;
  /** The disagreements, for inspection. */
  misses: Array<{ itemId: string; turn: number; question: SystemOneQuestion; label: number; value: number }>;
}

export async function agreement(model: SystemOneModel, turns: readonly LabelledTurn[]): Promise<Agreement> {
  const perQuestion = Object.fromEntries(
    SYSTEM_ONE_QUESTIONS.map((q) => [q, { correct: 0, total: 0, accuracy: 0 }]),
  ) as Agreement['perQuestion'];
  const misses: Agreement['misses'] = [];
  for (const t of turns) {
    const { answers } = await model.answer({ interaction: t.interaction, questions: SYSTEM_ONE_QUESTIONS });
    for (const a of answers) {
      const label = t.labels[a.question];
      if (label === undefined) continue;
      const slot = perQuestion[a.question];
      slot.total++;
      if (a.value >= 0.5 === label >= 0.5) slot.correct++;
      else misses.push({ itemId: t.itemId, turn: t.turn, question: a.question, label, value: a.value });
    }
  }
  let correct = 0;
  let total = 0;
  for (const q of SYSTEM_ONE_QUESTIONS) {
    const s = perQuestion[q];
    s.accuracy = s.total ? s.correct / s.total : 0;
    correct += s.correct;
    total += s.total;
  }
  return { turns: turns.length, perQuestion, overall: total ? correct / total : 0, misses };
}
