/**
 * The published JSON Schema of the session JSON format, generated from the zod schema (never hand-edited).
 * `packages/core/scripts/write-schema.mjs` writes it to `packages/core/schema/session.schema.json`; a test keeps
 * the committed file equal to this output.
 */
import { z } from 'zod';
import { SessionSchema } from './schemas.js';

export const SESSION_SCHEMA_ID = 'urn:mce:schema:session';

/**
 * JSON Schema (draft 2020-12) of one session as a file accepts it: fields with defaults are optional (`io: 'input'`),
 * and objects allow properties of their own (no `additionalProperties: false`): mce reads such a document, ignoring
 * them with a warning (see unknown-fields.ts), so a validator must not refuse it either.
 * `$defs.SessionFile` is the whole file (SessionFileSchema): one session or `{ "sessions": [...] }`.
 */
export function sessionJsonSchema(): Record<string, unknown> {
  const session = z.toJSONSchema(SessionSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema, ...body } = session;
  // Same shape as SessionFileSchema, with the session itself referenced instead of inlined twice.
  const sessionFile = {
    title: 'mce session file',
    anyOf: [
      { type: 'object', properties: { sessions: { type: 'array', items: { $ref: '#' } } }, required: ['sessions'] },
      { $ref: '#' },
    ],
  };
  return {
    $schema,
    $id: SESSION_SCHEMA_ID,
    title: 'mce session',
    description:
      'One session of a multi-agent system in the MAS ontology (see docs/session-format.md). Properties not defined here ' +
      'are allowed (forward compatibility): mce ignores them, warning with their JSON path and the likely property meant.',
    ...body,
    $defs: { SessionFile: sessionFile },
  };
}
