/**
 * The graded label of each class (levels 0–3 per question: 0 no, 1 mostly no, 2 mostly yes, 3 yes), the same for
 * both splits. Why each level is what it is: test/data/mcp-labelled/README.md.
 */
export const CLASS_LABELS = {
  good: { primitives: 3, arguments: 3, task: 3 },
  wrong_tool: { primitives: 0, arguments: 1, task: 0 },
  missing_call: { primitives: 0, arguments: 0, task: 0 },
  needless_call: { primitives: 1, arguments: 2, task: 1 },
  invalid_arguments: { primitives: 3, arguments: 0, task: 0 },
  hallucinated_arguments: { primitives: 3, arguments: 0, task: 0 },
  ignored_error: { primitives: 2, arguments: 3, task: 0 },
  unsupported_claim: { primitives: 3, arguments: 3, task: 0 },
  partial_completion: { primitives: 1, arguments: 3, task: 1 },
};
export const FAILURE_CLASSES = Object.keys(CLASS_LABELS).filter((c) => c !== 'good');
