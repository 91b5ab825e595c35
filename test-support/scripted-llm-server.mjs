/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for judge tests and benchmarks.
 * Each request to POST /v1/chat/completions (or /v1/embeddings) takes the next step of the script (or asks a handler function): a reply
 * text with usage and log-probabilities, an HTTP error with headers (Retry-After …), a latency, or a rejection of
 * log-probabilities. Every request is recorded (body, headers) and the peak number of requests in flight is kept.
 */
import http from 'node:http';

const DEFAULT_USAGE = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };

/**
 * Token log-probabilities for a reply `reasoning` + "Score:" + digit, with the alternatives at the digit position.
 * `distribution` maps alternative tokens (" 4", "4", …) to probabilities; the first key is the chosen token.
 */
export function scoreTokens(reasoning, distribution, options = {}) {
  const entries = Object.entries(distribution);
  const [chosen] = entries[0] ?? [' 3'];
  const label = options.label ?? ['Score', ':'];
  const words = reasoning.length ? reasoning.match(/\s*\S+/g) ?? [] : [];
  const plain = (token) => ({ token, logprob: -0.01, top_logprobs: [{ token, logprob: -0.01 }] });
  return [
    ...words.map(plain),
    ...(reasoning.length ? [plain('\n')] : []),
    ...label.map(plain),
    {
      token: chosen,
      logprob: Math.log(distribution[chosen]),
      top_logprobs: entries.map(([token, p]) => ({ token, logprob: p > 0 ? Math.log(p) : -9999 })),
    },
  ];
}

/** An embeddings reply: the step's vector, base64 float32 when the request asks for it (the openai client does). */
function embeddingBody(step, request) {
  const vector = step.embedding ?? [1, 0, 0];
  const embedding = request.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
  return {
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding }],
    model: step.model ?? request.model ?? 'scripted',
    ...(step.usage === null ? {} : { usage: step.usage ?? { prompt_tokens: 10, total_tokens: 10 } }),
  };
}

/** The assistant message: tool calls (function calling) when the step gives them, else the text. */
function messageOf(step, text) {
  if (!step.toolCalls) return { role: 'assistant', content: text, refusal: null };
  const tool_calls = step.toolCalls.map((call, i) => ({
    id: `call_${i}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  return { role: 'assistant', content: step.text ?? null, refusal: null, tool_calls };
}

function replyBody(step, request) {
  if (request.input !== undefined && request.messages === undefined) return embeddingBody(step, request);
  const text = step.text ?? 'Looks fine.\nScore: 3';
  const wantsLogprobs = request.logprobs === true;
  const logprobs = wantsLogprobs && !step.omitLogprobs && step.logprobs ? { content: step.logprobs } : null;
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: step.model ?? request.model ?? 'scripted',
    choices: [{ index: 0, message: messageOf(step, text), finish_reason: step.toolCalls ? 'tool_calls' : 'stop', logprobs }],
    ...(step.usage === null ? {} : { usage: step.usage ?? DEFAULT_USAGE }),
  };
}

function send(res, status, body, headers = {}) {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(payload);
}

/**
 * Starts the server. `script` is an array of steps (consumed in order; when it runs out, `fallback` answers) or a
 * function `(body, index) => step`. A step: { text, usage (null = none), logprobs (token array), omitLogprobs,
 * toolCalls ([{ name, arguments }]: a function-calling reply), embedding (the vector of an embeddings reply),
 * status, error, headers, latencyMs, model, rejectLogprobs (400 naming logprobs when they are asked for), rawBody
 * (answered as is with status 200 and `contentType`, default text/html: an endpoint that is not an OpenAI API) }.
 */
export async function startScriptedLLMServer(options = {}) {
  let script = options.script ?? [];
  let fallback = options.fallback ?? { status: 500, error: { message: 'scripted server: script exhausted' } };
  const requests = [];
  const state = { inFlight: 0, maxConcurrent: 0 };
  const sockets = new Set();

  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || !(req.url?.endsWith('/chat/completions') || req.url?.endsWith('/embeddings'))) {
          return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
        }
        let body;
        try {
          body = JSON.parse(raw);
        } catch {
          return send(res, 400, { error: { message: 'invalid JSON body' } });
        }
        const index = requests.length;
        requests.push({ body, headers: req.headers, at: Date.now(), path: req.url });
        state.inFlight++;
        state.maxConcurrent = Math.max(state.maxConcurrent, state.inFlight);
        try {
          const step = (typeof script === 'function' ? script(body, index) : script[index]) ?? fallback;
          if (step.latencyMs) await new Promise((resolve) => setTimeout(resolve, step.latencyMs));
          if (res.destroyed) return;
          if (step.rejectLogprobs && body.logprobs) {
            return send(res, 400, {
              error: {
                message: step.rejectMessage ?? 'logprobs is not supported by this model',
                type: 'invalid_request_error',
                param: 'logprobs',
                code: null,
              },
            });
          }
          if (step.rawBody !== undefined) {
            res.writeHead(200, { 'content-type': step.contentType ?? 'text/html' });
            return res.end(step.rawBody);
          }
          if (step.status && step.status >= 400) {
            return send(res, step.status, { error: step.error ?? { message: `scripted ${step.status}` } }, step.headers);
          }
          send(res, 200, replyBody(step, body), step.headers);
        } finally {
          state.inFlight--;
        }
      })();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();

  return {
    port,
    /** Base URL for an OpenAI client (`…/v1`). */
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get maxConcurrent() {
      return state.maxConcurrent;
    },
    get inFlight() {
      return state.inFlight;
    },
    /** Replaces the script (and optionally the fallback) and clears the recorded requests. */
    setScript(next, nextFallback) {
      script = next;
      if (nextFallback) fallback = nextFallback;
      requests.length = 0;
      state.maxConcurrent = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
