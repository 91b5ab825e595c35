/**
 * What a store holds of something, read from its tables directly: per table, the rows in which a text appears in any
 * column (ids, JSON payloads, …). Used to check that a deleted session leaves nothing behind.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

export function sqliteRowsMentioning(file: string, text: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    const counts: Record<string, number> = {};
    for (const table of tables) {
      const columns = (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => `coalesce(CAST("${c.name}" AS TEXT), '')`);
      counts[table] = db.prepare(`SELECT count(*) FROM "${table}" WHERE instr(${columns.join(" || char(31) || ")}, ?) > 0`).pluck().get(text) as number;
    }
    return counts;
  } finally {
    db.close();
  }
}

export async function postgresRowsMentioning(url: string, schema: string, text: string): Promise<Record<string, number>> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ table: string }>('SELECT tablename AS table FROM pg_tables WHERE schemaname = $1 ORDER BY tablename', [schema]);
    const counts: Record<string, number> = {};
    for (const { table } of rows) {
      // A row as text holds every column of it.
      const found = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}"."${table}" AS t WHERE strpos(t::text, $1) > 0`, [text]);
      counts[table] = found.rows[0]!.n;
    }
    return counts;
  } finally {
    await client.end();
  }
}
