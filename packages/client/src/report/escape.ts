/** Text from traces into HTML: every markup character escaped (span names and messages are anyone's text). */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(text: string | number | undefined | null): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** JSON inside a `<script type="application/json">`: `<` escaped so no `</script>` in the data can end the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}
