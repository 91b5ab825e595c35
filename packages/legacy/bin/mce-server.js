#!/usr/bin/env -S node --max-semi-space-size=64
// The telemetry-hub `mce-server` command: `mce serve` with the legacy routes (npm run build first).
import { legacyServer } from '../dist/server.js';

process.exitCode = await legacyServer(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
