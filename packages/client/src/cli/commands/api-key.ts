/** `mce api-key create`: a new REST API key, printed once, with the config line that admits it (its hash). */
import type { Command } from 'commander';
import { UsageError, writeJson, type CliIO } from '../context.js';
import { API_SCOPES, hashApiKey, newApiKey, parseScopes } from '../../api/auth.js';

const KEY_NAME = /^[A-Za-z0-9._-]{1,64}$/;

export function registerApiKeyCommands(program: Command, io: CliIO): void {
  const apiKey = program.command('api-key').description('REST API keys');
  apiKey
    .command('create <name>')
    .description('make a new API key: printed once; the config keeps only its hash')
    .requiredOption('--scopes <scopes>', `comma-separated: ${API_SCOPES.join(', ')}`)
    .option('--json', 'print {name, key, hash, scopes} as JSON')
    .action((name: string, opts: { scopes: string; json?: boolean }) => {
      if (!KEY_NAME.test(name)) throw new UsageError(`api-key create: a name is 1–64 letters, digits, '.', '_' or '-' (got ${JSON.stringify(name.slice(0, 64))})`);
      let scopes;
      try {
        scopes = parseScopes(opts.scopes, '--scopes');
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      const key = newApiKey();
      const hash = hashApiKey(key);
      if (opts.json) return writeJson(io, { name, key, hash, scopes });
      io.stdout.write(
        `key (shown once; give it to the client as Authorization: Bearer <key>):\n  ${key}\n\n` +
          `mce_config.yaml, under api.keys:\n  - { name: ${name}, hash: "${hash}", scopes: [${scopes.join(', ')}] }\n\n` +
          `or in MCE_API_KEYS (the key itself, for an environment kept secret):\n  ${name}:${key}:${scopes.join('+')}\n`,
      );
    });
}
