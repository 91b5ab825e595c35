#!/usr/bin/env -S node --max-semi-space-size=64
// The `mce` command: runs the built CLI (npm run build first).
// A larger young generation: metric computation allocates many short-lived results (see docs/engine.md).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
