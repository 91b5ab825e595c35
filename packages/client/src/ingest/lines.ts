/**
 * Lines of a text file, streamed: chunks are split on `\n` (a trailing `\r` is dropped) without readline's
 * per-line regular expression and event machinery. Memory stays at one chunk plus one partial line.
 */
import { createReadStream } from 'node:fs';

export async function* readLines(path: string, chunkBytes = 1 << 20): AsyncGenerator<string> {
  const input = createReadStream(path, { encoding: 'utf8', highWaterMark: chunkBytes });
  let rest = '';
  try {
    for await (const chunk of input as AsyncIterable<string>) {
      let text = rest === '' ? chunk : rest + chunk;
      let start = 0;
      let nl = text.indexOf('\n', start);
      while (nl !== -1) {
        const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
        yield text.slice(start, end);
        start = nl + 1;
        nl = text.indexOf('\n', start);
      }
      rest = start === 0 ? text : text.slice(start);
      text = '';
    }
    if (rest !== '') yield rest.endsWith('\r') ? rest.slice(0, -1) : rest;
  } finally {
    input.destroy();
  }
}
