import { MceError } from '@mce/core/errors';

/** Bad usage or input: exit code 2, message only. (Its own module: `main` loads it before any command's code.) */
export class UsageError extends MceError {
  readonly kind = 'bad-input' as const;
  override name = 'UsageError';
}

/**
 * The run went through, but some input files were skipped as unreadable (each named above): exit code 3, so that a
 * script tells a partial read from a whole one. Thrown after the output is written.
 */
export class SkippedInputError extends Error {
  override name = 'SkippedInputError';
}
