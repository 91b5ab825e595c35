/**
 * Which store to open: `MCE_STORE_URL` when set, else the seed's Neo4j variables (`NEO4J_URI` / `KG_DB_HOST`
 * family), else the embedded default `sqlite:.mce/mce.db`.
 */
import { redactUrl } from '@mce/core';
import type { StoreKind } from './types.js';

export const DEFAULT_STORE_URL = 'sqlite:.mce/mce.db';

export interface StoreTarget {
  kind: StoreKind;
  /** `sqlite:PATH`, `postgres://…` or a Bolt/Neo4j URI. */
  url: string;
  /** Neo4j credentials and database (from the URL's user info or the environment). */
  username?: string;
  password?: string;
  database?: string;
  /** PostgreSQL: the schema the tables live in (`?schema=NAME` in the URL); the store's default (`public`) when absent. */
  schema?: string;
}

type Env = Record<string, string | undefined>;

const first = (env: Env, ...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v !== '');

/** The store URL the environment selects (credentials not included; see `storeTargetFromEnv`). */
export function storeUrlFromEnv(env: Env = process.env): string {
  return storeTargetFromEnv(env).url;
}

/** The store the environment selects, with Neo4j credentials from `NEO4J_USERNAME`/`KG_DB_USER` etc. */
export function storeTargetFromEnv(env: Env = process.env): StoreTarget {
  const neo4jAuth = {
    username: first(env, 'NEO4J_USERNAME', 'KG_DB_USER'),
    password: first(env, 'NEO4J_PASSWORD', 'KG_DB_PASSWORD'),
    database: first(env, 'NEO4J_DATABASE', 'KG_DB_NAME'),
  };
  const explicit = first(env, 'MCE_STORE_URL');
  if (explicit) {
    const target = parseStoreUrl(explicit);
    return target.kind === 'neo4j' ? { ...withoutUndefined(neo4jAuth), ...target } : target;
  }
  const neo4jUri = first(env, 'NEO4J_URI', 'KG_DB_HOST');
  if (neo4jUri) {
    const url = /^[a-z0-9+]+:\/\//i.test(neo4jUri) ? neo4jUri : `bolt://${neo4jUri}`;
    return { ...withoutUndefined(neo4jAuth), ...parseStoreUrl(url) };
  }
  return parseStoreUrl(DEFAULT_STORE_URL);
}

const NEO4J_SCHEMES = ['neo4j:', 'neo4j+s:', 'neo4j+ssc:', 'bolt:', 'bolt+s:', 'bolt+ssc:'];

/** Classify a store URL; user info in a Neo4j URL becomes its credentials (and is removed from the URL). */
export function parseStoreUrl(url: string): StoreTarget {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!file) throw new Error(`store URL "${url}" names no file: use sqlite:PATH`);
    return { kind: 'sqlite', url: `sqlite:${file}` };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`store URL "${redactUrl(url)}" is not sqlite:PATH, postgres://… or neo4j://… / bolt://…`);
  }
  if (parsed.protocol === 'postgres:' || parsed.protocol === 'postgresql:') {
    // `schema` is ours, not a connection setting: taken out of the URL so that the driver never sends it.
    const schema = parsed.searchParams.get('schema');
    if (schema === null) return { kind: 'postgres', url };
    if (schema === '') throw new Error(`store URL "${redactUrl(url)}": schema= names no schema`);
    parsed.searchParams.delete('schema');
    return { kind: 'postgres', url: parsed.toString(), schema };
  }
  if (NEO4J_SCHEMES.includes(parsed.protocol)) {
    const target: StoreTarget = { kind: 'neo4j', url };
    if (parsed.username) {
      target.username = decodeURIComponent(parsed.username);
      target.password = decodeURIComponent(parsed.password);
      parsed.username = '';
      parsed.password = '';
      target.url = parsed.toString().replace(/\/$/, '');
    }
    return target;
  }
  throw new Error(`unsupported store URL scheme "${parsed.protocol}" (use sqlite:, postgres://, neo4j:// or bolt://)`);
}

/** The file of a `sqlite:` URL. */
export function sqliteFile(target: StoreTarget): string {
  return target.url.slice('sqlite:'.length);
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
