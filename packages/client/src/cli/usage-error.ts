import { MceError } from '@mce/core/errors';

/** Bad usage or input: exit code 2, message only. (Its own module: `main` loads it before any command's code.) */
export class UsageError extends MceError {
  readonly kind = 'bad-input' as const;
  override name = 'UsageError';
}
