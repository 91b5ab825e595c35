/**
 * The CLI's exit code of a failed command, from the error's kind (core's errorKind): the user's input (a file, a
 * field, an option, a name that does not exist) is 2, anything else (a service out of reach, a fault) is 1.
 */
import { errorKind } from '@mce/core/errors';

export function exitCodeOf(error: unknown): 1 | 2 {
  const kind = errorKind(error);
  return kind === 'bad-input' || kind === 'not-found' ? 2 : 1;
}
