/**
 * openai-agents' trace span in a Langfuse export whose observations carry no OpenTelemetry attributes: the SDK's
 * trace (`Agent workflow`, its default workflow name) is a root observation Langfuse types AGENT, around the agents
 * it ran. It is the run of the system (the MAS call), not an agent. With the span's attributes in the export
 * (`metadata.attributes`), the OpenInference rule of the normaliser says the same; without them only the
 * instrumentation scope or the default name tells it apart from an agent of the app's own at the root.
 */
import { isObj } from '../messages.js';
import type { Obj } from './common.js';

/** openai-agents' default `workflow_name` (its RunConfig): the name of the trace and of its root span. */
const DEFAULT_WORKFLOW_NAME = 'Agent workflow';

const isOpenAiAgentsScope = (metadata: Obj): boolean =>
  isObj(metadata.scope) && typeof metadata.scope.name === 'string' && metadata.scope.name.includes('openai_agents');

/** Whether a root AGENT observation without span attributes is openai-agents' trace (its workflow). */
export function isOpenAiAgentsWorkflow(o: Obj, metadata: Obj): boolean {
  if (typeof o.type !== 'string' || o.type.toUpperCase() !== 'AGENT' || (o.parentObservationId !== null && o.parentObservationId !== undefined)) return false;
  return o.name === DEFAULT_WORKFLOW_NAME || isOpenAiAgentsScope(metadata);
}

/** The GenAI attributes of that observation: a workflow invocation named after it. */
export function workflowAttributes(o: Obj): Obj {
  return { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.workflow.name': typeof o.name === 'string' ? o.name : DEFAULT_WORKFLOW_NAME };
}
