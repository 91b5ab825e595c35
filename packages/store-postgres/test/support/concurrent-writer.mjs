// One writer process of the PostgreSQL concurrency test. It loads the store from the TypeScript sources through
// Vite's module runner (the same resolution vitest uses), prints "ready", waits for "go" on stdin (sent to both
// writers at once), then writes its share and prints what it wrote and when. argv: pgUrl schema tag batches batchSize
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const [pgUrl, schema, tag, batches, batchSize] = process.argv.slice(2);
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const src = (pkg) => `${root}packages/${pkg}/src/index.ts`;
const { module: store } = await runnerImport(`${root}packages/store-postgres/src/index.ts`, {
  configFile: false,
  root,
  logLevel: 'silent',
  resolve: {
    alias: {
      '@mce/core': src('core'),
      '@mce/ingest': src('ingest'),
      '@mce/store/adapter': `${root}packages/store/src/adapter.ts`,
      '@mce/store-postgres': src('store-postgres'),
      '@mce/store': src('store'),
    },
  },
});

const definition = { id: 'mce:Duration', name: 'Duration', computedBy: 'mce', unit: 'ms', valueRange: 'non-negative number' };
const result = (id, sessionId, at) => ({
  id,
  name: 'Duration',
  result: at,
  reasoning: '',
  evaluationModel: null,
  evaluationPromptTokenCount: 0,
  evaluationCompletionTokenCount: 0,
  evaluationTotalTokenCount: 0,
  evaluationCost: 0,
  timestamp: new Date(1_767_225_600_000 + at).toISOString(),
  ofMetricType: definition.id,
  measures: { level: 'Session', id: sessionId },
  sessionId,
});
const part = (sessionId, b) => ({
  kind: 'Session',
  id: sessionId,
  startTime: 1000 + b,
  endTime: 2000 + b,
  traceIds: [`${tag}-trace-${b}`],
  masCalls: [],
  agentCalls: [],
  taskCalls: [],
  llmCalls: [],
  toolCalls: [
    { kind: 'ToolCall', id: `${tag}-${b}`, name: 'tool', startTime: 1000 + b, endTime: 1001 + b, status: 'ok', toolName: 't' },
  ],
  mcpServers: [],
});

// The class itself rather than openStore: openStore imports the driver when called, after the module runner that
// loaded these sources has closed.
const kg = new store.PostgresStore(pgUrl, { schema, logger: { warn: (d, m) => console.error(m, JSON.stringify(d)) } });
await kg.init();
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.pause();
const started = Date.now();
let written = 0;
for (let b = 0; b < Number(batches); b++) {
  const results = [];
  for (let i = 0; i < Number(batchSize); i++) results.push(result(`${tag}-${b}-${i}`, `session-${i % 5}`, b * 1000 + i));
  // Ids both writers write: upserts racing on the same rows.
  for (let i = 0; i < 20; i++) results.push(result(`shared-${b}-${i}`, 'session-0', b));
  // Both writers add parts to the same five sessions at the same time (first: a result is stored only beside its session).
  await kg.writeSessions([0, 1, 2, 3, 4].map((k) => part(`session-${k}`, b)));
  written += (await kg.writeMetricResults([definition], results)).written;
}
const finished = Date.now();
await kg.close();
process.stdout.write(`${JSON.stringify({ tag, written, started, finished })}\n`);
