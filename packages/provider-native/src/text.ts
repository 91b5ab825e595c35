/** `text` cut to `max` UTF-16 units, never between the two halves of a surrogate pair (a lone one breaks strict JSON). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}… [${text.length - end} more characters]`;
}
