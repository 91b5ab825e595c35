/**
 * A minimal `fetch` for the judge's OpenAI client on node:http(s) with keep-alive agents. The judge only sends
 * small JSON requests and reads whole JSON replies; for that, this costs about half the CPU per call of the global
 * (undici) fetch, which matters when thousands of judge calls run concurrently. Anything else (a streamed or
 * non-string body) goes to the global fetch.
 */
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body);
    case 'deflate':
      return zlib.inflateSync(body);
    case 'br':
      return zlib.brotliDecompressSync(body);
    default:
      return body;
  }
}

export const nodeHttpFetch: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const body = init?.body;
  if (input instanceof Request || (body !== undefined && body !== null && typeof body !== 'string') || !(url.protocol in agents)) {
    return fetch(input, init);
  }
  return new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
    if (body !== undefined && body !== null) headers['content-length'] = String(Buffer.byteLength(body));
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(
      url,
      {
        method: init?.method ?? 'GET',
        headers,
        agent: agents[url.protocol as keyof typeof agents],
        ...(init?.signal ? { signal: init.signal } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          try {
            const out = new Headers();
            for (const [key, value] of Object.entries(response.headers)) {
              if (value === undefined || key === 'content-encoding' || key === 'content-length') continue;
              out.set(key, Array.isArray(value) ? value.join(', ') : value);
            }
            const status = response.statusCode ?? 500;
            const payload = decode(Buffer.concat(chunks), response.headers['content-encoding']);
            resolve(new Response(status === 204 || status === 304 ? null : payload, { status, statusText: response.statusMessage ?? '', headers: out }));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    request.on('error', reject);
    request.end(body ?? undefined);
  });
};
