/** Query parameters that carry a secret (`?password=`, Azure's `api-key=`, a signed URL's `sig=`, …). */
const SECRET_PARAM = /pass|secret|token|key|sig|auth|credential/i;

/**
 * A URL fit for an error message or a log: the password of its user info and the values of secret-looking query
 * parameters become `***`. A string that is not a URL is returned with any `user:password@` masked.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/\/\/([^:/@\s]*):[^@/\s]*@/, '//$1:***@');
  }
  let changed = false;
  if (parsed.password) {
    parsed.password = '***';
    changed = true;
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) {
      parsed.searchParams.set(name, '***');
      changed = true;
    }
  }
  return changed ? parsed.toString().replace(/%2A%2A%2A/g, '***') : url;
}
