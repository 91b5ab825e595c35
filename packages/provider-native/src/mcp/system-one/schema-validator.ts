/**
 * JSON Schema validation of MCP call arguments against the tool's `inputSchema`, with ajv. Compiling is the
 * expensive part, so validators are cached per schema object (and per serialised schema, for copies).
 */
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';

// Loaded and made at the first schema compiled, not when the module loads: every `mce` command loads this module,
// and loading ajv with its formats and adding them costs a tenth of a second.
const require = createRequire(import.meta.url);
let shared: Ajv | undefined;
function ajv(): Ajv {
  if (shared) return shared;
  const { Ajv: AjvClass } = require('ajv') as typeof import('ajv');
  // ajv-formats is CommonJS with its function as `default` too.
  const formats = require('ajv-formats') as { default?: (a: Ajv) => Ajv } & ((a: Ajv) => Ajv);
  const addFormats = formats.default ?? formats;
  return (shared = addFormats(new AjvClass({ allErrors: true, strict: false, validateSchema: false, logger: false })));
}
const byObject = new WeakMap<object, ValidateFunction | null>();
const byText = new Map<string, ValidateFunction | null>();

function compile(schema: Record<string, unknown>): ValidateFunction | null {
  const known = byObject.get(schema);
  if (known !== undefined) return known;
  const text = JSON.stringify(schema);
  let fn = byText.get(text);
  if (fn === undefined) {
    try {
      fn = ajv().compile(schema);
    } catch {
      fn = null; // an invalid schema cannot judge the arguments
    }
    if (byText.size > 10_000) byText.clear();
    byText.set(text, fn);
  }
  byObject.set(schema, fn);
  return fn;
}

export interface ArgumentCheck {
  /** The schema could be applied. */
  checked: boolean;
  valid: boolean;
  missingRequired: string[];
  unknown: string[];
  /** Wrong type, enum, format, range or pattern violations. */
  typeErrors: number;
}

const TYPE_KEYWORDS = new Set(['type', 'enum', 'const', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'pattern', 'minLength', 'maxLength', 'minItems', 'maxItems']);

/** Check arguments against an `inputSchema`. Arguments given as a JSON string are parsed first. */
export function checkArguments(schema: Record<string, unknown> | undefined, args: unknown): ArgumentCheck {
  let value: unknown = args ?? {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return { checked: true, valid: false, missingRequired: [], unknown: [], typeErrors: 1 };
    }
  }
  if (!schema) return { checked: false, valid: true, missingRequired: [], unknown: [], typeErrors: 0 };
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const obj = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const missingRequired = obj ? required.filter((r) => obj[r] === undefined) : required;
  const unknown = obj ? Object.keys(obj).filter((k) => !(k in properties)) : [];
  const validate = compile(schema);
  if (!validate) return { checked: false, valid: true, missingRequired, unknown, typeErrors: 0 };
  const valid = validate(value) as boolean;
  const typeErrors = valid ? 0 : (validate.errors ?? []).filter((e) => TYPE_KEYWORDS.has(e.keyword)).length;
  return { checked: true, valid, missingRequired, unknown, typeErrors };
}
