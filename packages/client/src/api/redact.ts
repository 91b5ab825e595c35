/** Secrets out of what the API writes (logs and error answers), and log fields cut to a bounded size. */

/** A key made by `mce api-key create`, wherever it turns up (an error echoing a request, a path). */
const MCE_KEY = /mce_[A-Za-z0-9_-]{43}/g;
/** `scheme://user:password@host`: the password. */
const URL_PASSWORD = /(\/\/[^:/@\s]*):[^@/\s]+@/g;
/** `Bearer <anything>` as an endpoint may echo an Authorization header back. */
const BEARER = /(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;

/** `text` with every secret given, every mce key, URL password and bearer credential replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('***');
  return out.replace(MCE_KEY, '***').replace(URL_PASSWORD, '$1:***@').replace(BEARER, '$1***');
}

/** At most `max` characters, saying how many there were when cut. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** The secrets of the environment a server must never repeat: the judge's key, the API token, store passwords. */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  const names = ['OPENAI_API_KEY', 'MCE_API_TOKEN', 'NEO4J_PASSWORD', 'KG_DB_PASSWORD', 'PGPASSWORD'];
  const values = names.map((n) => env[n]?.trim()).filter((v): v is string => Boolean(v));
  for (const entry of env.MCE_API_KEYS?.split(',') ?? []) {
    const key = entry.split(':')[1]?.trim();
    if (key) values.push(key);
  }
  return values;
}

/**
 * A log line (pino's JSON text, as written) with the secrets of `env` and every mce key, URL password and bearer
 * credential replaced by `***`: the last guard of every line a command or the worker writes, whatever field or error
 * a secret got into. A secret is looked for as it is and as JSON writes it (a quote or backslash in it escaped).
 */
export function logLineRedactor(env: NodeJS.ProcessEnv): (line: string) => string {
  const secrets = environmentSecrets(env);
  const written = [...new Set([...secrets, ...secrets.map((secret) => JSON.stringify(secret).slice(1, -1))])];
  return (line) => redactSecrets(line, written);
}
