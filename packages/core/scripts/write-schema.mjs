#!/usr/bin/env node
// Writes the published JSON Schema of the session format from the zod schema: node packages/core/scripts/write-schema.mjs
// (run `npm run build` first: it imports the built package).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sessionJsonSchema } from '../dist/index.js';

const out = fileURLToPath(new URL('../schema/session.schema.json', import.meta.url));
writeFileSync(out, `${JSON.stringify(sessionJsonSchema(), null, 2)}\n`);
console.log(`wrote ${out}`);
