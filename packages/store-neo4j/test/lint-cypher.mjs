// Lint every Cypher statement of the Neo4j store with Neo4j's own Cypher language support (syntax and semantic
// analysis: undefined variables, scoping across WITH, aggregation rules). Not a project dependency (it needs a
// newer Node and ~100 MB): install it beside, then run after `npm run build`:
//   npm install --no-save @neo4j-cypher/language-support@2.0.0-next.38
//   node packages/store-neo4j/test/lint-cypher.mjs
import { lintCypherQuery } from '@neo4j-cypher/language-support';

const cypher = await import(new URL('../dist/cypher.js', import.meta.url).href);
const statements = [];
for (const [name, value] of Object.entries(cypher)) {
  if (typeof value === 'string') statements.push([name, value]);
  else if (Array.isArray(value)) value.forEach((s, i) => statements.push([`${name}[${i}]`, s]));
  else if (name === 'writeCalls') for (const kind of ['MASCall', 'AgentCall', 'TaskCall', 'LLMCall', 'ToolCall']) statements.push([`${name}(${kind})`, value(kind)]);
  else if (name === 'listSessions' || name === 'listSessionIds') for (const limit of [true, false]) statements.push([`${name}(${limit})`, value(limit)]);
  else if (name === 'queryResults' || name === 'summarizeResults') {
    const every = { metrics: { names: ['a'], metricIds: ['p:a'] }, levels: ['Session'], from: 1, to: 2, min: 0, max: 1, limit: 5, offset: 0 };
    const shapes = { none: { offset: 0 }, every, sessions: { sessionIds: ['s'], metrics: { names: [], metricIds: ['p:a'] }, offset: 0 } };
    for (const [shape, plan] of Object.entries(shapes)) statements.push([`${name}(${shape})`, value(plan)]);
  }
}
let failed = 0;
for (const [name, statement] of statements) {
  // Parameters are supplied at run time: "not defined" is expected for every $param.
  const problems = lintCypherQuery(statement, {}).diagnostics.filter((d) => !/^Parameter \$\w+ is not defined/.test(d.message));
  if (problems.length) failed += 1;
  console.log(`${problems.length ? '✗' : '✓'} ${name}${problems.map((p) => `\n    ${p.message}`).join('')}`);
}
console.log(`${statements.length - failed}/${statements.length} statements pass`);
process.exitCode = failed ? 1 : 0;
