#!/usr/bin/env node
// The telemetry-hub `mce-cli` command, served by mce (npm run build first).
import { legacyCli } from '../dist/cli.js';

process.exitCode = await legacyCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
