#!/usr/bin/env node
// Writes docs/metrics.md from the native metrics' metadata: node packages/provider-native/scripts/write-metrics-doc.mjs
// (run `npm run build` first: it imports the built package).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { catalogMarkdown, nativeProvider } from '../dist/index.js';

const out = fileURLToPath(new URL('../../../docs/metrics.md', import.meta.url));
writeFileSync(out, catalogMarkdown(nativeProvider.metrics().map((m) => m.metadata)));
console.log(`wrote ${out}`);
