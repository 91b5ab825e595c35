/**
 * CommonJS libraries loaded at their first use rather than with the module that uses them: most commands never parse
 * a YAML file or log a line, and loading these costs 10–15 ms each at every start (bench/startup).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const yaml = (): typeof import('yaml') => require('yaml') as typeof import('yaml');
export const pino = (): typeof import('pino') => require('pino') as typeof import('pino');
