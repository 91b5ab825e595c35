#!/usr/bin/env node
/**
 * Fits the local System One model on the training split of the labelled set (test/data/mcp-labelled/: train.jsonl
 * and legacy.jsonl; heldout.jsonl is never used) and writes src/mcp/system-one/weights.json. Run after changing
 * the features or the labelled set, then rebuild:
 *   npm run build && node packages/provider-native/scripts/calibrate-system-one.mjs
 * A test checks that the committed weights are what this script produces.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { calibrateOnLabelledSet } from '../dist/mcp/system-one/calibrate-labelled.js';
import { readLabelledSet } from '../dist/mcp/system-one/labelled-set.js';

const dataDir = fileURLToPath(new URL('../test/data/mcp-labelled/', import.meta.url));
const outPath = fileURLToPath(new URL('../src/mcp/system-one/weights.json', import.meta.url));
const weights = calibrateOnLabelledSet(readLabelledSet(dataDir));
writeFileSync(outPath, `${JSON.stringify(weights, null, 2)}\n`);
console.log(`wrote ${outPath}: lambda ${weights.lambda}, fitted on ${JSON.stringify(weights.examples)} labelled turns`);
