/**
 * API keys with scopes: who may call the REST API and what each may do. A key is stored only as its SHA-256 hash (a
 * key is 256 random bits, so a fast hash is as safe as a slow one and costs nothing per request); a presented key is
 * hashed and compared with every configured hash in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { EnvError } from '../config/client-config.js';

export const API_SCOPES = ['read', 'write', 'admin'] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export interface ApiKey {
  name: string;
  /** `sha256:` and 64 hex digits: the hash of the key, never the key. */
  hash: string;
  scopes: readonly ApiScope[];
}

/** What a route needs: a scope, or nothing (`open`: health and the OpenAPI document). */
export type RouteAccess = ApiScope | 'open';

/** Routes anyone may call: a load balancer's health check and the API's description. */
export const OPEN_PATHS: readonly string[] = ['/healthz', '/openapi.json', '/view/sign-in', '/view/sign-out'];

/**
 * The scope a request needs, from its method alone, so a route added later cannot be left unguarded: reading is
 * `read` (the web view too), posting is `write` (ingest, compute, OTLP receive), deleting (or any other method) is
 * `admin`.
 */
export function routeAccess(method: string, path: string): RouteAccess {
  if (OPEN_PATHS.includes(path)) return 'open';
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS') return 'read';
  if (m === 'POST') return 'write';
  return 'admin';
}

export const KEY_HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** A new key: `mce_` and 43 base64url characters (256 random bits). */
export function newApiKey(): string {
  return `mce_${randomBytes(32).toString('base64url')}`;
}

/** The configured keys, looked up by a presented key. */
export class ApiKeys {
  readonly #keys: ReadonlyArray<{ key: ApiKey; digest: Buffer }>;

  constructor(keys: readonly ApiKey[]) {
    const names = new Set<string>();
    for (const key of keys) {
      if (names.has(key.name)) throw new Error(`API key name ${JSON.stringify(key.name)} is given twice`);
      names.add(key.name);
    }
    this.#keys = keys.map((key) => ({ key, digest: Buffer.from(key.hash.slice('sha256:'.length), 'hex') }));
  }

  get size(): number {
    return this.#keys.length;
  }

  /** The key presented, or undefined. Every hash is compared (no early exit): the time says nothing of which matched. */
  find(presented: string): ApiKey | undefined {
    const digest = createHash('sha256').update(presented, 'utf8').digest();
    let found: ApiKey | undefined;
    for (const { key, digest: wanted } of this.#keys) {
      if (timingSafeEqual(digest, wanted) && found === undefined) found = key;
    }
    return found;
  }
}

/** The key of `Authorization: Bearer <key>` (the scheme is case-insensitive), or undefined. */
export function bearerKey(header: string | undefined): string | undefined {
  const match = /^bearer +(.+)$/i.exec(header?.trim() ?? '');
  return match ? match[1]!.trim() : undefined;
}

const KEY_NAME = /^[A-Za-z0-9._-]{1,64}$/;

function scopesOf(text: string, where: string): ApiScope[] {
  const scopes = text.split('+').map((s) => s.trim());
  const bad = scopes.filter((s) => !(API_SCOPES as readonly string[]).includes(s));
  if (bad.length > 0 || scopes.length === 0) throw new Error(`${where}: scopes must be ${API_SCOPES.join(', ')} joined by + (got "${text}")`);
  return [...new Set(scopes as ApiScope[])];
}

/** `--scopes read,write` (or `read+write`) → scopes, the error naming the option. */
export function parseScopes(text: string, where: string): ApiScope[] {
  return scopesOf(text.replace(/,/g, '+'), where);
}

/**
 * The keys of MCE_API_KEYS (`name:key:scope+scope,…`) and MCE_API_TOKEN (one key with every scope, named `token`, as
 * the single shared token was). An error names the variable and the entry, never the key.
 */
export function apiKeysFromEnv(env: NodeJS.ProcessEnv): ApiKey[] {
  const keys: ApiKey[] = [];
  const listed = env.MCE_API_KEYS?.trim();
  if (listed) {
    listed.split(',').forEach((entry, i) => {
      const parts = entry.trim().split(':');
      const where = `entry ${i + 1}`;
      if (parts.length !== 3) throw new EnvError('MCE_API_KEYS', `${where}: expected name:key:scope+scope (${parts.length} colon-separated parts)`);
      const [name, key, scopes] = parts as [string, string, string];
      if (!KEY_NAME.test(name)) throw new EnvError('MCE_API_KEYS', `${where}: a key name is 1–64 letters, digits, '.', '_' or '-' (got ${JSON.stringify(name.slice(0, 64))})`);
      if (key.length < 16) throw new EnvError('MCE_API_KEYS', `${where} (${name}): the key must have at least 16 characters (\`mce api-key create\` makes one)`);
      try {
        keys.push({ name, hash: hashApiKey(key), scopes: scopesOf(scopes, `${where} (${name})`) });
      } catch (error) {
        throw new EnvError('MCE_API_KEYS', (error as Error).message);
      }
    });
  }
  const token = env.MCE_API_TOKEN?.trim();
  if (token) keys.push({ name: 'token', hash: hashApiKey(token), scopes: [...API_SCOPES] });
  return keys;
}

export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
