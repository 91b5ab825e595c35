#!/usr/bin/env -S node --max-semi-space-size=64
// The `mce-worker` command: runs the built worker (npm run build first).
// A larger young generation: metric computation allocates many short-lived results (see docs/engine.md).
import { main } from '../dist/cli.js';

process.exit(await main(process.argv.slice(2)));
