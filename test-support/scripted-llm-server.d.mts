export interface ScriptedTopLogprob {
  token: string;
  logprob: number;
}
export interface ScriptedTokenLogprob extends ScriptedTopLogprob {
  top_logprobs?: ScriptedTopLogprob[];
  bytes?: number[] | null;
}
/** Usage as the endpoint reports it: some endpoints leave counts out. */
export interface ScriptedUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
}
export interface ScriptedStep {
  /** Reply text (default "Looks fine.\nScore: 3"). */
  text?: string;
  /** Usage of the reply; null sends none (default 100 prompt + 20 completion). */
  usage?: ScriptedUsage | null;
  /** Token log-probabilities, returned when the request asks for them. */
  logprobs?: ScriptedTokenLogprob[];
  /** Answer without log-probabilities even when asked. */
  omitLogprobs?: boolean;
  /** HTTP error status (>= 400) with `error` as the body's error object. */
  status?: number;
  error?: { message: string; type?: string; param?: string | null; code?: string | null };
  headers?: Record<string, string>;
  latencyMs?: number;
  model?: string;
  /** A 400 naming logprobs when the request asks for them; a normal reply otherwise. */
  rejectLogprobs?: boolean;
  /** Answered as is with status 200 (an endpoint that is not an OpenAI API). */
  rawBody?: string;
  /** The content type of `rawBody` (default text/html). */
  contentType?: string;
  rejectMessage?: string;
  /** A function-calling reply: the assistant message carries these tool calls (arguments: JSON text or a value). */
  toolCalls?: Array<{ name: string; arguments: unknown }>;
  /** The vector of an embeddings reply (POST …/embeddings; default [1, 0, 0]). */
  embedding?: number[];
}
export interface RecordedRequest {
  body: Record<string, unknown> & { input?: unknown; model?: string; messages?: Array<{ role: string; content: string }>; logprobs?: boolean; top_logprobs?: number; temperature?: number };
  headers: Record<string, string | string[] | undefined>;
  at: number;
  /** The request path (…/chat/completions or …/embeddings). */
  path?: string;
}
export type Script = ScriptedStep[] | ((body: RecordedRequest['body'], index: number) => ScriptedStep);
export interface ScriptedLLMServer {
  port: number;
  url: string;
  requests: RecordedRequest[];
  readonly maxConcurrent: number;
  readonly inFlight: number;
  setScript(script: Script, fallback?: ScriptedStep): void;
  close(): Promise<void>;
}
export function startScriptedLLMServer(options?: { script?: Script; fallback?: ScriptedStep }): Promise<ScriptedLLMServer>;
export function scoreTokens(
  reasoning: string,
  distribution: Record<string, number>,
  options?: { label?: string[] },
): ScriptedTokenLogprob[];
