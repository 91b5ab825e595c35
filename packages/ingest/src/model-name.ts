/**
 * The model of an LLM span. A name that names nothing (`unknown`, `none`, empty: LangChain and some proxies write
 * `unknown` when the client did not say) is no model: the next source is asked — another dialect's attribute, the
 * LangChain `ls_model_name` metadata (under whatever association prefix the instrumentation put it), then the model
 * in the request URL (Gemini / Vertex `…/models/<model>:generateContent`, Azure `…/deployments/<model>/…`, Bedrock
 * `…/model/<model>/invoke`).
 */
import { fieldValues } from './dialects/index.js';
import type { SpanRecord } from './span.js';

const PLACEHOLDER = /^(?:unknown|none|null|undefined|n\/a|-)?$/i;

/** A model name that names a model. */
export function isModelName(value: unknown): value is string {
  return typeof value === 'string' && !PLACEHOLDER.test(value.trim());
}

function lsModelName(span: SpanRecord): string | undefined {
  for (const [key, value] of Object.entries(span.attributes)) {
    if ((key === 'ls_model_name' || key.endsWith('.ls_model_name')) && isModelName(value)) return value;
  }
  return undefined;
}

const URL_KEYS = ['url.full', 'http.url', 'url.path', 'http.target'];
const URL_MODEL = [/\/models\/([^/:?#]+)(?::|$|[?#])/, /\/deployments\/([^/?#]+)\//, /\/model\/([^/?#]+)\/(?:invoke|converse)/];

function urlModel(span: SpanRecord): string | undefined {
  for (const key of URL_KEYS) {
    const url = span.attributes[key];
    if (typeof url !== 'string') continue;
    for (const pattern of URL_MODEL) {
      const m = pattern.exec(url);
      if (!m) continue;
      try {
        const name = decodeURIComponent(m[1]!);
        if (isModelName(name)) return name;
      } catch {
        // A malformed escape is no model name.
      }
    }
  }
  return undefined;
}

/** The first dialect value of `field` that names a model. */
function named(span: SpanRecord, field: 'requestModel' | 'responseModel'): string | undefined {
  for (const v of fieldValues(span, field)) {
    const s = typeof v === 'number' ? String(v) : v;
    if (isModelName(s)) return s;
  }
  return undefined;
}

export function requestModelOf(span: SpanRecord): string | undefined {
  return named(span, 'requestModel') ?? lsModelName(span) ?? urlModel(span);
}

export function responseModelOf(span: SpanRecord): string | undefined {
  return named(span, 'responseModel');
}
