#!/usr/bin/env -S node --max-semi-space-size=64
// `mce` of the whole product: the client's command (see @mce/client).
import '@mce/client/bin/mce.js';
