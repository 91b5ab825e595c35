/**
 * A stand-in for the Neo4j driver that records every `run(cypher, params)` and answers with scripted rows, so
 * the Neo4j adapter's statements and parameters can be checked without a server.
 */
import type { CypherTransactionLike, Neo4jDriverLike, Neo4jSessionLike } from '../src/index.js';

export interface RecordedRun {
  cypher: string;
  params: Record<string, unknown>;
  mode: 'read' | 'write';
  /** Which driver session (1-based) ran it. */
  session: number;
}

export type Responder = (cypher: string, params: Record<string, unknown>) => Record<string, unknown>[];

export class RecordingDriver implements Neo4jDriverLike {
  readonly runs: RecordedRun[] = [];
  opened = 0;
  closed = 0;
  readonly databases: (string | undefined)[] = [];
  readonly bookmarkManagers: unknown[] = [];

  /** The databases verifyConnectivity was asked about; set `unreachable` to make it fail as a driver does. */
  readonly verified: (string | undefined)[] = [];
  unreachable: Error | undefined;

  constructor(private readonly respond: Responder = () => []) {}

  async verifyConnectivity(config?: { database?: string }): Promise<void> {
    this.verified.push(config?.database);
    if (this.unreachable) throw this.unreachable;
  }

  session(config?: { database?: string; bookmarkManager?: unknown }): Neo4jSessionLike {
    const id = ++this.opened;
    this.databases.push(config?.database);
    this.bookmarkManagers.push(config?.bookmarkManager);
    const tx = (mode: 'read' | 'write'): CypherTransactionLike => ({
      run: async (cypher, params = {}) => {
        this.runs.push({ cypher, params, mode, session: id });
        return { records: this.respond(cypher, params).map((row) => ({ toObject: () => row })) };
      },
    });
    return {
      executeRead: (work) => work(tx('read')),
      executeWrite: (work) => work(tx('write')),
      close: async () => {
        this.closed += 1;
      },
    };
  }

  async close(): Promise<void> {}

  /** Runs whose statement contains `fragment`. */
  find(fragment: string): RecordedRun[] {
    return this.runs.filter((r) => r.cypher.includes(fragment));
  }
}
