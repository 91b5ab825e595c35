/**
 * Date/version suffixes providers append to a model name: `-2024-08-06`, `-20240806`, `@20240620` (Vertex),
 * `-09-2025`, `-0125`. Longest forms first so `-2024-08-06` is not cut to `-2024-08`.
 */
const DATE_SUFFIX = /(?:-\d{4}-\d{2}-\d{2}|[-@]\d{8}|-\d{2}-\d{4}|-\d{4})$/;

/** The model name without its date suffix, or undefined when it has none. */
export function withoutDateSuffix(model: string): string | undefined {
  const stripped = model.replace(DATE_SUFFIX, '');
  return stripped !== model && stripped.length > 0 ? stripped : undefined;
}

/** `openai/gpt-4o` → `gpt-4o`; undefined when the name has no provider prefix. */
export function withoutProviderPrefix(model: string): string | undefined {
  const slash = model.lastIndexOf('/');
  return slash > 0 && slash < model.length - 1 ? model.slice(slash + 1) : undefined;
}
