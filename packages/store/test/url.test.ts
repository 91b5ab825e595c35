import { describe, expect, it } from 'vitest';
import { DEFAULT_STORE_URL, parseStoreUrl, storeTargetFromEnv, storeUrlFromEnv } from '../src/index.js';

describe('store URL resolution', () => {
  it('defaults to the embedded SQLite file', () => {
    expect(DEFAULT_STORE_URL).toBe('sqlite:.mce/mce.db');
    expect(storeTargetFromEnv({})).toEqual({ kind: 'sqlite', url: 'sqlite:.mce/mce.db' });
    expect(storeUrlFromEnv({ MCE_STORE_URL: '' })).toBe('sqlite:.mce/mce.db');
  });

  it('MCE_STORE_URL wins over the Neo4j variables', () => {
    const env = { MCE_STORE_URL: 'postgresql://u@db:5432/kg', NEO4J_URI: 'bolt://graph:7687' };
    expect(storeTargetFromEnv(env)).toEqual({ kind: 'postgres', url: 'postgresql://u@db:5432/kg' });
    expect(storeTargetFromEnv({ MCE_STORE_URL: 'sqlite:/var/lib/mce/kg.db' })).toEqual({ kind: 'sqlite', url: 'sqlite:/var/lib/mce/kg.db' });
    expect(storeTargetFromEnv({ MCE_STORE_URL: 'sqlite:///abs/kg.db' })).toEqual({ kind: 'sqlite', url: 'sqlite:/abs/kg.db' });
  });

  it('reads the seed’s NEO4J_* variables, then the KG_DB_* family', () => {
    expect(
      storeTargetFromEnv({ NEO4J_URI: 'neo4j+s://graph.example:7687', NEO4J_USERNAME: 'neo', NEO4J_PASSWORD: 'pw', NEO4J_DATABASE: 'kg' }),
    ).toEqual({ kind: 'neo4j', url: 'neo4j+s://graph.example:7687', username: 'neo', password: 'pw', database: 'kg' });
    expect(storeTargetFromEnv({ KG_DB_HOST: 'graph:7687', KG_DB_USER: 'u', KG_DB_PASSWORD: 'p', KG_DB_NAME: 'n' })).toEqual({
      kind: 'neo4j',
      url: 'bolt://graph:7687',
      username: 'u',
      password: 'p',
      database: 'n',
    });
    // NEO4J_* wins over KG_DB_* for each setting.
    expect(storeTargetFromEnv({ KG_DB_HOST: 'bolt://a', NEO4J_URI: 'bolt://b', KG_DB_USER: 'k', NEO4J_USERNAME: 'n' })).toMatchObject({
      url: 'bolt://b',
      username: 'n',
    });
    // A Neo4j MCE_STORE_URL takes its credentials from the same variables.
    expect(storeTargetFromEnv({ MCE_STORE_URL: 'bolt://g:7687', NEO4J_USERNAME: 'n', NEO4J_PASSWORD: 'x' })).toEqual({
      kind: 'neo4j',
      url: 'bolt://g:7687',
      username: 'n',
      password: 'x',
    });
  });

  it('takes Neo4j credentials from the URL’s user info, out of the URL', () => {
    expect(parseStoreUrl('neo4j://alice:s%40cret@graph:7687')).toEqual({
      kind: 'neo4j',
      url: 'neo4j://graph:7687',
      username: 'alice',
      password: 's@cret',
    });
  });

  it('takes a PostgreSQL schema from ?schema=, out of the URL the driver gets', () => {
    expect(parseStoreUrl('postgres://mce@db:5432/kg?schema=tenant_a&sslmode=disable')).toEqual({
      kind: 'postgres',
      url: 'postgres://mce@db:5432/kg?sslmode=disable',
      schema: 'tenant_a',
    });
    expect(parseStoreUrl('postgres://mce@db/kg')).toEqual({ kind: 'postgres', url: 'postgres://mce@db/kg' });
    expect(() => parseStoreUrl('postgres://mce:pw@db/kg?schema=')).toThrow('store URL "postgres://mce:***@db/kg?schema=": schema= names no schema');
  });

  it('rejects what it cannot open, naming the accepted forms', () => {
    expect(() => parseStoreUrl('mysql://x')).toThrow('unsupported store URL scheme "mysql:"');
    expect(() => parseStoreUrl('sqlite:')).toThrow('names no file');
    expect(() => parseStoreUrl('just-a-path.db')).toThrow('is not sqlite:PATH, postgres://… or neo4j://… / bolt://…');
  });
});
