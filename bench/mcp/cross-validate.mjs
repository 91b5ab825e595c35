#!/usr/bin/env node
/**
 * Cross-validated agreement of the local System One model over the labelled set, folds holding whole scenarios (a
 * good interaction, its degraded twins, its casual wording, its two-part request): how a change to the features is
 * judged without leaning on one split. Fits as the calibration script does (soft targets, a good interaction
 * weighing as much as its twins, the task's weights kept ≤ −0.05, the penalty chosen by the same inner
 * cross-validation), per fold.
 *   npm run build && node bench/mcp/cross-validate.mjs [--with-heldout | --by-server]
 * By default the folds cover train.jsonl and legacy.jsonl, and heldout.jsonl is judged by the fit on all of them
 * (the committed weights' procedure); --with-heldout puts heldout.jsonl in the folds too. --by-server holds out
 * one server at a time instead: the training scenarios whose call goes to it (a two-part request goes with its
 * first part's server) are judged by a fit on the other servers' and the legacy items, so each figure is one of
 * a server the fit has not seen. Items of any other file are left out.
 */
import { fileURLToPath } from 'node:url';
import {
  FEATURE_NAMES,
  NON_POSITIVE,
  chooseLambda,
  decisiveWeights,
  extractFeatures,
  fitLogistic,
  parseLabelledSet,
  readJsonLines,
  readLabelledSet,
} from '@mce/provider-native';

const QUESTIONS = ['primitives', 'arguments', 'task'];
const FOLDS = 5;
const withHeldout = process.argv.includes('--with-heldout');
const byServer = process.argv.includes('--by-server');
const dir = fileURLToPath(new URL('../../packages/provider-native/test/data/mcp-labelled/', import.meta.url));
const developmentIds = new Set(readJsonLines(`${dir}heldout.jsonl`).map((item) => item.id));
const items = parseLabelledSet(readLabelledSet(dir)).filter((i) => !i.holdout || developmentIds.has(i.id));
const splitOf = (i) => (i.category.startsWith('legacy:') ? 'legacy' : i.holdout ? 'heldout' : 'train');
const scenarioOf = (i) => (splitOf(i) === 'legacy' ? i.id : (i.twin ?? i.id).replace(/~casual/, '').replace(/\+second/, ''));

/** As calibration counts a legacy turn: primitives always, arguments where the primitive was right, never the task. */
function fittedLabels(item, labels) {
  if (splitOf(item) !== 'legacy') return labels;
  const out = {};
  if (labels.primitives !== undefined) out.primitives = labels.primitives;
  if (labels.arguments !== undefined && labels.primitives === 1) out.arguments = labels.arguments;
  return out;
}

const twins = new Map();
for (const i of items) if (i.twin !== null) twins.set(i.twin, (twins.get(i.twin) ?? 0) + 1);
const examples = items.flatMap((item) =>
  item.turns.map((t, turn) => ({
    item, turn, split: splitOf(item), group: scenarioOf(item), features: extractFeatures(t.interaction),
    labels: t.labels, fitted: fittedLabels(item, t.labels), weight: twins.get(item.id) ?? 1,
  })),
);
const order = new Map();
for (const e of examples) if (!order.has(e.group)) order.set(e.group, order.size);
const byId = new Map(items.map((i) => [i.id, i]));
/** The server a training scenario's (first) call goes to, read from its good interaction. */
const serverOf = (e) => byId.get(e.item.twin ?? e.item.id).turns[0].interaction.calls[0]?.server;
const servers = [...new Set(examples.filter((e) => e.split === 'train').map(serverOf))];
// By server: a fold per server, of its training scenarios; the legacy items are never held out.
const foldOf = (e) => (byServer ? (e.split === 'train' ? servers.indexOf(serverOf(e)) : -1) : order.get(e.group) % FOLDS);
const foldCount = byServer ? servers.length : FOLDS;
const pool = examples.filter((e) => withHeldout || e.split !== 'heldout');

function fit(set, lambda) {
  return Object.fromEntries(QUESTIONS.map((q) => {
    const used = set.filter((e) => e.fitted[q] !== undefined);
    return [q, fitLogistic(used.map((e) => e.features), used.map((e) => e.fitted[q]), lambda, used.map((e) => e.weight), NON_POSITIVE[q])];
  }));
}
const probability = (w, x) => 1 / (1 + Math.exp(-x.reduce((z, v, k) => z + w.weights[k] * v, w.bias)));
const answer = (weights, e) => Object.fromEntries(QUESTIONS.map((q) => [q, probability(weights[q], e.features)]));
const asCalibration = (set) => set.map((e) => ({ features: e.features, labels: e.fitted, weight: e.weight, group: e.group }));

const predicted = new Map();
for (let k = 0; k < foldCount; k++) {
  const train = pool.filter((e) => foldOf(e) !== k);
  const weights = fit(train, chooseLambda(asCalibration(train)));
  for (const e of pool) if (foldOf(e) === k) predicted.set(e, answer(weights, e));
}
if (!withHeldout || byServer) {
  const weights = fit(pool, chooseLambda(asCalibration(pool)));
  for (const e of examples) if (!predicted.has(e)) predicted.set(e, answer(weights, e));
}

function agreement(set) {
  let right = 0;
  let total = 0;
  for (const e of set)
    for (const q of QUESTIONS) {
      const label = e.labels[q];
      if (label === undefined) continue;
      total++;
      if (predicted.get(e)[q] >= 0.5 === label >= 0.5) right++;
    }
  return total ? right / total : 0;
}
const pct = (x) => `${(100 * x).toFixed(1)}%`;
if (byServer) {
  console.log(`System One agreement on each server held out (${servers.length} servers; ${FEATURE_NAMES.length} features)`);
  console.log('training scenarios of one server judged by the fit on the others and legacy; legacy and heldout judged by the fit on all');
  const cells = servers.map((s) => `${s} ${pct(agreement(examples.filter((e) => e.split === 'train' && serverOf(e) === s)))}`);
  console.log(`  per server: ${cells.join(', ')}`);
} else {
  console.log(`System One cross-validated agreement (${FOLDS} folds of whole scenarios; ${FEATURE_NAMES.length} features)`);
  console.log(withHeldout ? 'folds over train + legacy + heldout' : 'folds over train + legacy; heldout judged by the fit on both');
}
console.log(`all three splits: ${pct(agreement(examples))}`);
for (const split of ['train', 'legacy', 'heldout']) {
  const set = examples.filter((e) => e.split === split);
  const byClass = new Map();
  for (const e of set) byClass.set(e.item.category, [...(byClass.get(e.item.category) ?? []), e]);
  const classes = split === 'legacy' ? '' : `  | ${[...byClass].map(([c, s]) => `${c} ${pct(agreement(s))}`).join(', ')}`;
  console.log(`  ${split.padEnd(8)} ${pct(agreement(set))}${classes}`);
}

// The gap per failure class: the mean score of the good twins minus that of the degraded ones (first turn).
for (const split of ['train', 'heldout']) {
  const first = new Map(examples.filter((e) => e.split === split && e.turn === 0).map((e) => [e.item.id, predicted.get(e)]));
  const use = (v) => {
    const w = decisiveWeights(v, { primitives: 1 / 3, arguments: 1 / 3, task: 1 / 3 });
    return QUESTIONS.reduce((s, q) => s + w[q] * v[q], 0);
  };
  const gaps = new Map();
  for (const item of items.filter((i) => splitOf(i) === split && i.twin !== null)) {
    const good = first.get(item.twin);
    const bad = first.get(item.id);
    const g = gaps.get(item.category) ?? { n: 0, use: 0, task: 0 };
    gaps.set(item.category, { n: g.n + 1, use: g.use + use(good) - use(bad), task: g.task + good.task - bad.task });
  }
  const cells = [...gaps].map(([c, g]) => `${c} ${(g.use / g.n).toFixed(2)}/${(g.task / g.n).toFixed(2)}`);
  console.log(`${split} gaps (MCPUse/MCPTaskCompletion): ${cells.join(', ')}`);
}
