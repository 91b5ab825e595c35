#!/usr/bin/env -S node --max-semi-space-size=64
// `mce-server` of the whole product: `mce serve` with the telemetry-hub routes (see @mce/legacy).
import '@mce/legacy/bin/mce-server.js';
