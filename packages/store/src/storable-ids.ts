/**
 * The ids every store can keep apart and give back by URL, checked as sessions are written whatever they came from
 * (a session file is checked by its schema first; a trace's session id comes from an attribute): no lone surrogate
 * (PostgreSQL made two such ids one, SQLite kept one no URL could name) and at most MAX_KEY_BYTES in UTF-8.
 */
import { hasLoneSurrogate, MAX_KEY_BYTES, MceError, quoteControlCharacters, type Session } from '@mce/core';
import { allCalls } from './rows.js';

/** A session holding an id no store can keep: bad input, named. */
export class UnstorableIdError extends MceError {
  readonly kind = 'bad-input' as const;
  override readonly name = 'UnstorableIdError';
}

function problemOf(id: string): string | undefined {
  if (hasLoneSurrogate(id)) return 'holds a lone surrogate (\\ud800–\\udfff without its pair), which no UTF-8 text can hold';
  if (Buffer.byteLength(id, 'utf8') > MAX_KEY_BYTES) return `is longer than ${MAX_KEY_BYTES} bytes in UTF-8`;
  return undefined;
}

/** Throws UnstorableIdError naming the first session, call or MCP server whose id no store can keep. */
export function assertStorableIds(sessions: readonly Session[]): void {
  const shown = (id: string) => quoteControlCharacters(id.length > 80 ? `${id.slice(0, 80)}…` : id).replace(/[\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  for (const session of sessions) {
    const own = problemOf(session.id);
    if (own) throw new UnstorableIdError(`session id ${shown(session.id)} ${own}`);
    for (const call of allCalls(session)) {
      const problem = problemOf(call.id);
      if (problem) throw new UnstorableIdError(`session ${shown(session.id)}: the id of ${call.kind} ${shown(call.id)} ${problem}`);
    }
    for (const server of session.mcpServers ?? []) {
      const problem = problemOf(server.name);
      if (problem) throw new UnstorableIdError(`session ${shown(session.id)}: MCP server name ${shown(server.name)} ${problem}`);
    }
  }
}
