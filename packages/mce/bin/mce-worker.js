#!/usr/bin/env -S node --max-semi-space-size=64
// `mce-worker` of the whole product: the standalone worker's command (see @mce/worker).
import '@mce/worker/bin/mce-worker.js';
