/** Bad usage or input: exit code 2, message only. (Its own module: `main` loads it before any command's code.) */
export class UsageError extends Error {
  override name = 'UsageError';
}
