/**
 * Values across the Neo4j boundary: integers go out as Neo4j Integers (a JS number would be stored as a Float),
 * nested values go out as JSON strings (Neo4j properties hold only scalars and lists of scalars), and Integers
 * coming back become JS numbers.
 */
import neo4j from 'neo4j-driver';

export const int = (n: number) => neo4j.int(n);

/** Integers → numbers, recursively through lists and maps. */
export function fromNeo4j(value: unknown): unknown {
  if (neo4j.isInt(value)) return (value as { toNumber(): number }).toNumber();
  if (Array.isArray(value)) return value.map(fromNeo4j);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromNeo4j(v)]));
  }
  return value;
}

/** A property map without null/undefined entries (Neo4j has no null properties: absent is absent). */
export function properties(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined));
}
