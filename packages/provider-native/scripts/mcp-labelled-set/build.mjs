#!/usr/bin/env node
/**
 * Writes the labelled MCP set (test/data/mcp-labelled/train.jsonl, heldout.jsonl and fresh.jsonl) from the scenarios (see
 * items.mjs). Deterministic: running it again rewrites the same files; a test checks the committed files are these.
 *   node packages/provider-native/scripts/mcp-labelled-set/build.mjs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freshItems, heldoutItems, jsonLines, trainItems } from './items.mjs';

const dir = (name) => fileURLToPath(new URL(`../../test/data/mcp-labelled/${name}`, import.meta.url));
const catalogs = JSON.parse(readFileSync(dir('catalogs.json'), 'utf8')).servers;
for (const [name, items] of [['train.jsonl', trainItems(catalogs)], ['heldout.jsonl', heldoutItems()], ['fresh.jsonl', freshItems()]]) {
  writeFileSync(dir(name), jsonLines(items));
  console.log(`wrote ${name}: ${items.length} interactions`);
}
