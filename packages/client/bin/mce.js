#!/usr/bin/env node
// The `mce` command: runs the built CLI (npm run build first).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
