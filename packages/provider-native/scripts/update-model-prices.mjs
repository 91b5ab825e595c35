#!/usr/bin/env node
/**
 * Rewrites the committed price table (data/model_prices.json) from LiteLLM's model_prices_and_context_window.json,
 * trimmed to chat (and Responses-API), completion and embedding models with per-token prices. Run by hand
 * (`npm run update-model-prices`), by the release build (`npm run build:release`) and by the worker's image build
 * (this file is published with the package). The source is validated as the run-time refresh validates it
 * (fetchLiteLLMPrices: a 2xx answer, JSON, per-token prices), and must price gpt-4o (the fallback). If it cannot be
 * read or is invalid, the copy in place is left unchanged and the script exits non-zero, or with --keep-on-failure
 * warns and exits 0 (a release is not held up by LiteLLM being down: the copy in place is shipped).
 *
 * Options: --from FILE|URL (default MODEL_PRICES_URL, else LiteLLM's file on GitHub), --out FILE (default the
 * committed copy), --providers a,b (default: the providers already in that copy), --all-providers,
 * --dry-run (print the summary only), --keep-on-failure. Reads the built package for the source's address.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LITELLM_PRICES_URL, fetchLiteLLMPrices, pricesFromLiteLLM } from '@mce/provider-native';

const COMMITTED = fileURLToPath(new URL('../data/model_prices.json', import.meta.url));
const MODES = new Set(['chat', 'responses', 'completion', 'embedding']);
const DOWNLOAD_TIMEOUT_MS = 30_000;

function parseArgs(argv) {
  const args = { from: process.env.MODEL_PRICES_URL || LITELLM_PRICES_URL, out: COMMITTED, providers: undefined, all: false, dry: false, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--from') args.from = argv[++i];
    else if (a === '--out') args.out = argv[++i];
    else if (a === '--providers') args.providers = argv[++i].split(',').map((p) => p.trim()).filter(Boolean);
    else if (a === '--all-providers') args.all = true;
    else if (a === '--dry-run') args.dry = true;
    else if (a === '--keep-on-failure') args.keep = true;
    else throw new Error(`unknown option ${a}`);
  }
  return args;
}

/** The source document, validated as the run-time refresh does (a file is held to the same rules). */
async function readSource(from) {
  if (/^https?:\/\//.test(from)) {
    try {
      return (await fetchLiteLLMPrices(from, DOWNLOAD_TIMEOUT_MS)).document;
    } catch (error) {
      const reason = error instanceof Error ? (error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message) : String(error);
      throw new Error(`${from}: ${reason}`, { cause: error });
    }
  }
  const document = JSON.parse(fs.readFileSync(from, 'utf8'));
  pricesFromLiteLLM(document);
  return document;
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

async function main(args) {
  let providers;
  if (!args.all) {
    providers = args.providers
      ? new Set(args.providers)
      : new Set(Object.values(JSON.parse(fs.readFileSync(fs.existsSync(args.out) ? args.out : COMMITTED, 'utf8'))).map((e) => e.litellm_provider));
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
  const args = parseArgs(process.argv.slice(2));
  main(args).catch((error) => {
    const message = `update-model-prices: ${error instanceof Error ? error.message : String(error)}; the committed copy is unchanged`;
    if (args.keep) {
      console.warn(`${message} (--keep-on-failure: shipping it)`);
    } else {
      console.error(message);
      process.exitCode = 1;
    }
  });
}
