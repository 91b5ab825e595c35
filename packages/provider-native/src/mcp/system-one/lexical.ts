/**
 * Lexical signals for the local System One model: a small tokenizer (camelCase / snake_case split, light
 * stemming, stop words dropped) and BM25 relevance of each available primitive to the request.
 */

const STOP = new Set(
  (
    'a an the and or but if then of to in on at by for with from into onto about as is are was were be been being ' +
    'do does did done have has had i me my we our you your he she it its they them their this that these those ' +
    'what which who whom whose when where why how can could would should will shall may might must please ' +
    'there here not no so than too very just also any some all each every up down out over again more most ' +
    'get give tell show let make want need like know find one two use using via s t ' +
    // conversational filler ("hey, quick question: … right now?"): no tool's words
    'hey hi hello thanks thank quick question right now ok okay'
  ).split(' '),
);

/**
 * Light suffix stripping, enough to match "forecasts"/"forecast", "booking"/"book", "created"/"create",
 * "stored"/"store": a final silent e goes too, so the bare verb meets its -ed and -ing forms.
 */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return word.slice(0, -3) + 'y';
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2);
  if (word.endsWith('es') && word.length > 4 && /(ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  const single = word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
  return single.length >= 4 && single.endsWith('e') && !single.endsWith('ee') ? single.slice(0, -1) : single;
}

/**
 * Words of requests that name an MCP action in other terms than tool descriptions do, expanded to the terms tools
 * use (a request to "tell the channel" is one to post a message). General vocabulary, not any one server's.
 */
const SYNONYMS: Record<string, string[]> = {
  pr: ['pull', 'request'],
  tell: ['post', 'message'],
  told: ['post', 'message'],
  notify: ['post', 'message'],
  announce: ['post', 'message'],
  inform: ['post', 'message'],
  say: ['post', 'message'],
  answer: ['reply'],
  respond: ['reply'],
  layout: ['tree', 'directory'],
  folder: ['directory'],
  rename: ['move'],
  column: ['schema'],
  // Verbs of everyday requests for the actions tools name otherwise ("cut a branch", "wipe the key", "draw a logo").
  cut: ['create'],
  spin: ['create'],
  bump: ['update'],
  wipe: ['delete'],
  drop: ['delete'],
  purge: ['delete'],
  flip: ['set'],
  remember: ['set', 'save'],
  store: ['set', 'save'],
  draw: ['generate', 'image'],
  render: ['generate', 'image'],
  picture: ['image'],
  photo: ['image'],
  ticket: ['issue'],
  mr: ['merge', 'request'],
  dig: ['search', 'retrieve'],
};

/** SYNONYMS as tokens meet them: both sides stemmed. */
const STEMMED_SYNONYMS = new Map(Object.entries(SYNONYMS).map(([word, terms]) => [stem(word), terms.map(stem)]));

/** Words after which a synonym's verb speaks to the user rather than asking for an action ("tell me"). */
const TO_THE_USER = new Set(['me', 'us']);

const cache = new Map<string, string[]>();

/** Content tokens of a text, stemmed; cached (the same descriptions and requests are tokenized again and again). */
export function tokens(text: string): string[] {
  const hit = cache.get(text);
  if (hit) return hit;
  const out = tokensUncached(text);
  // Bounded memory in a long-running worker: at most 10,000 texts of up to 4,000 characters.
  if (text.length <= 4000) {
    if (cache.size >= 10_000) cache.clear();
    cache.set(text, out);
  }
  return out;
}

/** The same tokens, not cached: for pieces of a text seen once (a reply's clauses), which would only churn the cache. */
export function tokensUncached(text: string): string[] {
  const out: string[] = [];
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  words.forEach((w, k) => {
    if (!w || STOP.has(w)) return;
    const stemmed = stem(w);
    out.push(stemmed);
    const more = STEMMED_SYNONYMS.get(stemmed);
    // "tell me", "let us know": the reply is the message, no tool's.
    if (more && !TO_THE_USER.has(words[k + 1] ?? '')) out.push(...more);
  });
  return out;
}

export function tokenSet(text: string): Set<string> {
  return new Set(tokens(text));
}

/**
 * BM25 over a fixed set of documents (the primitives on offer; k1 = 1.2, b = 0.75), indexed once: postings per
 * word, so scoring a query touches only the documents sharing a word with it. idf is floored so that a word every
 * primitive shares still counts a little.
 */
export class Bm25Index {
  readonly size: number;
  readonly #postings = new Map<string, Array<{ doc: number; weight: number }>>();

  constructor(documents: readonly (readonly string[])[]) {
    const n = (this.size = documents.length);
    const avg = documents.reduce((a, d) => a + d.length, 0) / (n || 1) || 1;
    const tfs = documents.map((d) => {
      const tf = new Map<string, number>();
      for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
      return tf;
    });
    const df = new Map<string, number>();
    for (const tf of tfs) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    tfs.forEach((tf, doc) => {
      const norm = 1.2 * (0.25 + 0.75 * ((documents[doc]?.length ?? 0) / avg));
      for (const [t, f] of tf) {
        const dfi = df.get(t) ?? 0;
        const idf = Math.max(0.2, Math.log(1 + (n - dfi + 0.5) / (dfi + 0.5)));
        let list = this.#postings.get(t);
        if (!list) this.#postings.set(t, (list = []));
        list.push({ doc, weight: (idf * f * 2.2) / (f + norm) });
      }
    });
  }

  /** Score of every document for the query (each distinct query word counts once). */
  score(query: Iterable<string>): Float64Array {
    const scores = new Float64Array(this.size);
    for (const t of new Set(query)) {
      const list = this.#postings.get(t);
      if (list) for (const p of list) scores[p.doc]! += p.weight;
    }
    return scores;
  }
}

/** Share of `part`'s tokens that occur in `whole` (0 when `part` has none). */
export function coverage(part: readonly string[], whole: ReadonlySet<string>): number {
  if (part.length === 0) return 0;
  let hit = 0;
  for (const t of part) if (whole.has(t)) hit++;
  return hit / part.length;
}
