/**
 * Microsoft Agent Framework workflows: the run of a workflow is a `workflow.run` span (`workflow.id`,
 * `workflow.name`), the MAS call; `workflow.build` only records the graph. Its agents are GenAI `invoke_agent` spans
 * inside `executor.process <executor>` spans, with their LLM and tool spans beside them (normalise.ts attributes
 * those to the agent).
 */
import type { Dialect } from './types.js';

export const agentFramework: Dialect = {
  name: 'agent-framework',
  classify(span) {
    return span.name === 'workflow.run' && span.attributes['workflow.id'] !== undefined ? { kind: 'mas' } : undefined;
  },
  fields: {
    workflowName: [(s) => (s.name === 'workflow.run' ? s.attributes['workflow.name'] : undefined)],
  },
};
