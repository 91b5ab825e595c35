#!/usr/bin/env node
// `mce-cli` of the whole product: the telemetry-hub era command (see @mce/legacy).
import '@mce/legacy/bin/mce-cli.js';
