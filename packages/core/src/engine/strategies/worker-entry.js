// Worker thread / child process entry of the `thread`, `process` and `hybrid` strategies. Plain JS on purpose: it
// runs as is (from src under tests, from dist in production) and imports only Node built-ins and the metric modules
// named by each task's PortableMetricRef. Protocol: see wire.ts.
import { parentPort } from 'node:worker_threads';

const LIST_BY_LEVEL = {
  MASCall: 'masCalls',
  AgentCall: 'agentCalls',
  TaskCall: 'taskCalls',
  LLMCall: 'llmCalls',
  ToolCall: 'toolCalls',
};

/** @type {Map<string, Promise<unknown>>} module export by `module#exportName` */
const exportsCache = new Map();

function loadExport(ref) {
  const key = `${ref.module}#${ref.exportName}`;
  let loaded = exportsCache.get(key);
  if (!loaded) {
    loaded = import(ref.module).then((mod) => {
      if (!(ref.exportName in mod)) throw new Error(`module "${ref.module}" has no export "${ref.exportName}"`);
      return mod[ref.exportName];
    });
    exportsCache.set(key, loaded);
  }
  return loaded;
}

const isMetric = (value) => value && typeof value === 'object' && value.metadata && typeof value.compute === 'function';
const keyOf = (metric) => `${metric.metadata.provider}:${metric.metadata.name}`;

/** The export may be the Metric, a MetricProvider (picked by key), or a function returning either. */
async function resolveMetric(ref, metricKey) {
  let value = await loadExport(ref);
  if (typeof value === 'function' && !isMetric(value)) value = await value();
  if (isMetric(value) && keyOf(value) === metricKey) return value;
  if (value && typeof value.metrics === 'function') {
    const found = value.metrics().find((m) => keyOf(m) === metricKey);
    if (found) return found;
  }
  throw new Error(`export "${ref.exportName}" of "${ref.module}" does not provide metric "${metricKey}"`);
}

/** The ResultLookup of one task: the request's dependency results it declared (DependencyView's rule), indexed on first use. */
function lookupOver(dependencyResults, dependencyKeys, askingLevel) {
  const byId = new Map();
  const all = (name) => {
    const key = Object.prototype.hasOwnProperty.call(dependencyKeys, name) ? dependencyKeys[name] : undefined;
    return key === undefined ? [] : (dependencyResults[key] ?? []);
  };
  // As core's DependencyView: by level and id; an id two levels share means the asking task's level first.
  const indexOf = (name) => {
    let index = byId.get(name);
    if (!index) {
      index = { byLevelId: new Map(), byId: new Map() };
      for (const r of all(name)) {
        index.byLevelId.set(`${r.measures.level}\u0000${r.measures.id}`, r);
        if (!index.byId.has(r.measures.id)) index.byId.set(r.measures.id, r);
      }
      byId.set(name, index);
    }
    return index;
  };
  return {
    get: (name, elementId, level) => {
      const index = indexOf(name);
      if (level !== undefined) return index.byLevelId.get(`${level}\u0000${elementId}`);
      return index.byLevelId.get(`${askingLevel}\u0000${elementId}`) ?? index.byId.get(elementId);
    },
    all: (name) => all(name).slice(),
    valuesAt: (name, level) => all(name).filter((r) => r.measures.level === level).map((r) => r.result),
  };
}

/** A thrown value that is not an Error, as core's record builder prints it (describe). */
function printed(value) {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return '(a value that cannot be printed)';
    }
  }
}

const failure = (error) => ({
  $failed:
    error instanceof Error
      ? error.name && error.name !== 'Error' && error.message
        ? `${error.name}: ${error.message}`
        : error.message || error.name
      : printed(error),
  // isTransientError's rule, restated: this file runs in workers without the package's modules.
  ...(error instanceof Error && error.transient === true ? { $transient: true } : {}),
});

/**
 * `compute(ctx)` within `timeoutMs` (timeout.ts's rule, restated: this file runs without the package's modules): past
 * it, a transient "timed out" error, and the computation's own signal aborts.
 */
function timed(ctx, timeoutMs, compute) {
  if (timeoutMs === undefined) return Promise.resolve().then(() => compute(ctx));
  const controller = new AbortController();
  const started = performance.now();
  const timeout = () => Object.assign(new Error(`timed out after ${timeoutMs} ms`), { name: 'MetricTimeoutError', transient: true });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = timeout();
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    Promise.resolve()
      .then(() => compute({ ...ctx, signal: controller.signal }))
      .then(
        (value) => {
          clearTimeout(timer);
          if (performance.now() - started > timeoutMs) reject(timeout());
          else resolve(value);
        },
        (error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
  });
}

/** Runs the functions given to it at most `n` at a time (p-limit's contract, for this dependency-free file). */
function limiter(n) {
  let active = 0;
  const waiting = [];
  const next = () => {
    if (active >= n || waiting.length === 0) return;
    active++;
    const { fn, resolve, reject } = waiting.shift();
    Promise.resolve()
      .then(fn)
      .then(resolve, reject)
      .finally(() => {
        active--;
        next();
      });
  };
  return (fn) =>
    new Promise((resolve, reject) => {
      waiting.push({ fn, resolve, reject });
      next();
    });
}

async function runTask(session, dependencyResults, task) {
  const all = task.level === 'Session' ? [session] : session[LIST_BY_LEVEL[task.level]];
  const elements = task.indices ? task.indices.map((i) => all[i]) : all;
  let metric;
  try {
    metric = await resolveMetric(task.ref, task.metricKey);
  } catch (error) {
    // A metric this worker cannot load fails its own elements, not the other tasks of the request.
    return elements.map(() => failure(error));
  }
  const ctx = { session, level: task.level, options: task.options, results: lookupOver(dependencyResults, task.dependencyKeys, task.level) };
  if (typeof metric.computeBatch === 'function') {
    try {
      const outcomes = await timed(ctx, task.timeoutMs, (c) => metric.computeBatch(elements, c));
      if (!Array.isArray(outcomes) || outcomes.length !== elements.length) {
        const got = Array.isArray(outcomes) ? `${outcomes.length} outcomes` : 'no array';
        return elements.map(() => ({ $failed: `computeBatch returned ${got} for ${elements.length} elements` }));
      }
      return outcomes.map((o) => (o instanceof Error ? failure(o) : o));
    } catch (error) {
      return elements.map(() => failure(error));
    }
  }
  // An LLM-judged task runs as on the async pool: a limited number at once, each timed from its own start.
  const limit = task.concurrency === undefined ? (fn) => fn() : limiter(task.concurrency);
  return Promise.all(
    elements.map(async (element) => {
      try {
        const outcome = await limit(() => timed(ctx, task.timeoutMs, (c) => metric.compute(element, c)));
        return outcome instanceof Error ? failure(outcome) : outcome; // a returned Error keeps its transient flag
      } catch (error) {
        return failure(error);
      }
    }),
  );
}

async function handle(request) {
  try {
    const outcomes = [];
    for (const task of request.tasks) outcomes.push(await runTask(request.session, request.dependencyResults, task));
    return { id: request.id, outcomes };
  } catch (error) {
    return { id: request.id, error: failure(error).$failed };
  }
}

function sendable(reply) {
  if (!reply.outcomes) return reply;
  const outcomes = reply.outcomes.map((task) =>
    task.map((outcome) => {
      try {
        structuredClone(outcome);
        return outcome;
      } catch (error) {
        return { $failed: `outcome could not be sent back: ${failure(error).$failed}` };
      }
    }),
  );
  return { ...reply, outcomes };
}

function serve(send, onMessage) {
  onMessage((request) =>
    handle(request).then((reply) => {
      try {
        send(reply);
      } catch (error) {
        // An outcome that cannot be cloned (a function in details, …) fails that element, not the other metrics of
        // the request: each outcome is tried on its own, and only the ones that fail are replaced by their failure.
        try {
          send(sendable(reply));
        } catch {
          send({ id: request.id, error: `outcome could not be sent back: ${failure(error).$failed}` });
        }
      }
    }),
  );
}

if (parentPort) {
  const port = parentPort;
  serve((reply) => port.postMessage(reply), (listener) => port.on('message', listener));
} else if (typeof process.send === 'function') {
  serve((reply) => process.send(reply), (listener) => process.on('message', listener));
  // The engine's process went away: nothing left to serve.
  process.on('disconnect', () => process.exit(0));
}
