#!/usr/bin/env node
/**
 * The notes of a GitHub release: for each package published (the --report of publish-unpublished.mjs), the section
 * of its CHANGELOG.md for the version published. Markdown on stdout.
 *
 *   node scripts/release/release-notes.mjs --report FILE
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { workspacePackages } from './workspace.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const { values: options } = parseArgs({ options: { report: { type: 'string' } } });
if (!options.report) throw new Error('release-notes: --report FILE is required');

/** The lines under `## <version>` up to the next `## ` heading; an error naming the file when there is none. */
export function changelogSection(text, version, file) {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${version}`);
  if (start < 0) throw new Error(`release-notes: ${file} has no "## ${version}" section (run changeset version)`);
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n').trim();
}

const published = JSON.parse(readFileSync(options.report, 'utf8'));
const byName = new Map(workspacePackages(repo).map((p) => [p.manifest.name, p]));
const sections = published.map(({ name, version }) => {
  const pkg = byName.get(name);
  if (!pkg) throw new Error(`release-notes: ${name} is not a workspace package`);
  const file = join(pkg.relativeDir, 'CHANGELOG.md');
  return `## ${name}@${version}\n\n${changelogSection(readFileSync(join(repo, file), 'utf8'), version, file)}\n`;
});
console.log(sections.length > 0 ? sections.join('\n') : 'Every package of this tag was already on the registry: nothing new was published.');
