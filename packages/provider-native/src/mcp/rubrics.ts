/** The written rubrics and prompts of the MCP metrics (ours; DeepEval's metrics only fix what is judged). */

/** 4: System One's words widened (requests' everyday verbs, a silent e stemmed, conversational filler dropped, titles the agent's own) and the model refitted on the broader training split (3: the fourth revision; cached results of earlier versions are not replayed). */
export const MCP_PROMPT_VERSION = 4;

export const PRIMITIVE_USAGE_RUBRIC = `You judge PRIMITIVE USAGE: whether an agent chose the right MCP primitives (tools, resources, prompts) from
the servers available to it, for the user's request.
- 5: every primitive called was the right one for the request; no better primitive was available and missed; no
  needless, repeated or unrelated call; if no call was made, none was needed.
- 4: the right primitives, with one minor inefficiency (an extra harmless call, a slightly less direct choice).
- 3: partly right: some needed primitive was used, but a clearly better one was ignored or a needless call was made.
- 2: mostly wrong: the main primitive was not the one the request needed, or a needed call was skipped.
- 1: wrong or non-existent primitives were called, or nothing was called although the request needed a server.
Judge the choice of primitives only, not the arguments passed to them.`;

export const ARGUMENT_CORRECTNESS_RUBRIC = `You judge ARGUMENT CORRECTNESS: whether the arguments the agent passed to the MCP primitives it called were
correct for those primitives and the user's request.
- 5: every call's arguments match the input schema (types, structure, required fields present, no unknown fields)
  and every value is taken from, or correctly derived from, the request, the earlier conversation or earlier results.
- 4: correct, with one minor flaw (a harmless extra field, a slightly loose but still right value).
- 3: one argument is wrong, missing or of the wrong type, or one value is not grounded in the request.
- 2: several arguments are wrong, missing, mistyped or invented.
- 1: the arguments are unusable or unrelated to the request.
If no primitive was called, judge 5 unless a call was clearly needed and its arguments were obvious (then 3).`;

export const TASK_COMPLETION_RUBRIC = `You judge TASK COMPLETION from the user's point of view: given only what the user can see (their request, the
earlier conversation and the reply they received), was the user's task completed?
- 5: the reply fully accomplishes or answers what the user asked.
- 4: accomplished, with a small gap (a detail missing, a minor imprecision).
- 3: partly accomplished: useful progress, but an important part of the request is not done.
- 2: mostly not accomplished: the reply is vague, off target or only explains why it could not be done.
- 1: not accomplished at all, or the reply is wrong or misleading.`;

export const EXTRACTION_SYSTEM_PROMPT = `You read an MCP agent interaction and extract facts for a later judgement. Do not judge.
Reply with JSON only: {"asked": "<what the user asked for, in one or two sentences, with every concrete value they gave>",
"done": "<what the agent did: each primitive called, with its purpose and whether it succeeded>",
"needed": "<the MCP primitives on offer that the request actually needs, by name>"}`;

export function primitivePrompt(rendered: string): string {
  return `${rendered}\n\nHow well were the MCP primitives chosen for this request?`;
}
export function argumentPrompt(rendered: string): string {
  return `${rendered}\n\nHow correct were the arguments passed to the MCP primitives?`;
}
export function taskPrompt(visible: string): string {
  return `${visible}\n\nWas the user's task completed?`;
}
