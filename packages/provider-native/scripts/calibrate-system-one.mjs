#!/usr/bin/env node
/**
 * Fits the local System One model on the calibration part of the labelled set (items not marked holdout) and
 * writes src/mcp/system-one/weights.json. Run after changing the features or the labelled set, then rebuild:
 *   npm run build && node packages/provider-native/scripts/calibrate-system-one.mjs
 * A test checks that the committed weights are what this script produces.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { calibrateOnLabelledSet } from '../dist/mcp/system-one/calibrate-labelled.js';

const dataPath = fileURLToPath(new URL('../test/data/mcp-labelled.json', import.meta.url));
const outPath = fileURLToPath(new URL('../src/mcp/system-one/weights.json', import.meta.url));
const weights = calibrateOnLabelledSet(JSON.parse(readFileSync(dataPath, 'utf8')));
writeFileSync(outPath, `${JSON.stringify(weights, null, 2)}\n`);
console.log(`wrote ${outPath}: fitted on ${JSON.stringify(weights.examples)} labelled turns`);
