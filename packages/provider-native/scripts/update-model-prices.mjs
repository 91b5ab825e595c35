#!/usr/bin/env node
/**
 * Rewrites the committed price table (data/model_prices.json) from LiteLLM's model_prices_and_context_window.json,
 * trimmed to chat (and Responses-API), completion and embedding models with per-token prices. Run by hand:
 * `npm run update-model-prices`. If the source cannot be read or is invalid, the committed copy is left unchanged
 * and the script exits non-zero.
 *
 * Options: --from FILE|URL (default MODEL_PRICES_URL, else LiteLLM's file on GitHub), --out FILE (default the
 * committed copy), --providers a,b (default: the providers already in the committed copy), --all-providers,
 * --dry-run (print the summary only). Reads the built package (`npm run build`) for the source's address.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LITELLM_PRICES_URL } from '@mce/provider-native';

const COMMITTED = fileURLToPath(new URL('../data/model_prices.json', import.meta.url));
const MODES = new Set(['chat', 'responses', 'completion', 'embedding']);

function parseArgs(argv) {
  const args = { from: process.env.MODEL_PRICES_URL || LITELLM_PRICES_URL, out: COMMITTED, providers: undefined, all: false, dry: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--from') args.from = argv[++i];
    else if (a === '--out') args.out = argv[++i];
    else if (a === '--providers') args.providers = argv[++i].split(',').map((p) => p.trim()).filter(Boolean);
    else if (a === '--all-providers') args.all = true;
    else if (a === '--dry-run') args.dry = true;
    else throw new Error(`unknown option ${a}`);
  }
  return args;
}

async function readSource(from) {
  if (/^https?:\/\//.test(from)) {
    const response = await fetch(from, { signal: AbortSignal.timeout(30_000) });
    if (!response.ok) throw new Error(`HTTP ${response.status} from ${from}`);
    return response.json();
  }
  return JSON.parse(fs.readFileSync(from, 'utf8'));
}

const price = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The entries mce keeps: the right mode, a per-token input price, and (except embeddings) an output price. */
function trimPrices(source, providers) {
  if (typeof source !== 'object' || source === null || Array.isArray(source)) throw new Error('expected a JSON object');
  const kept = {};
  for (const name of Object.keys(source).sort()) {
    const entry = source[name];
    if (name === 'sample_spec' || typeof entry !== 'object' || entry === null) continue;
    if (!MODES.has(entry.mode) || !price(entry.input_cost_per_token)) continue;
    if (entry.mode !== 'embedding' && !price(entry.output_cost_per_token)) continue;
    if (providers && !providers.has(entry.litellm_provider)) continue;
    kept[name] = Object.fromEntries(Object.keys(entry).sort().map((k) => [k, entry[k]]));
  }
  if (!kept['gpt-4o'] || !price(kept['gpt-4o'].output_cost_per_token)) {
    throw new Error('the source has no usable gpt-4o entry (the fallback price): refusing it');
  }
  return kept;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let providers;
  if (!args.all) {
    providers = args.providers
      ? new Set(args.providers)
      : new Set(Object.values(JSON.parse(fs.readFileSync(COMMITTED, 'utf8'))).map((e) => e.litellm_provider));
  }
  const trimmed = trimPrices(await readSource(args.from), providers);
  const count = Object.keys(trimmed).length;
  const modes = {};
  for (const e of Object.values(trimmed)) modes[e.mode] = (modes[e.mode] ?? 0) + 1;
  const summary = `${count} models (${Object.entries(modes).map(([m, n]) => `${n} ${m}`).join(', ')}) from ${args.from}`;
  if (args.dry) {
    console.log(`would write ${summary}`);
    return;
  }
  const tmp = `${args.out}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(path.resolve(args.out)), { recursive: true });
  fs.writeFileSync(tmp, `${JSON.stringify(trimmed, null, 2)}\n`);
  fs.renameSync(tmp, args.out);
  console.log(`wrote ${summary} to ${args.out}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((error) => {
    console.error(`update-model-prices: ${error instanceof Error ? error.message : String(error)}; the committed copy is unchanged`);
    process.exitCode = 1;
  });
}
