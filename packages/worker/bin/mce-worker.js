#!/usr/bin/env node
// The `mce-worker` command: runs the built worker (npm run build first).
import { main } from '../dist/cli.js';

process.exit(await main(process.argv.slice(2)));
