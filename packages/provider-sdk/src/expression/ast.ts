/** The syntax tree of an sdk expression; every node keeps its 1-based column in the source text for errors. */
import type { OntologyLevel } from '@mce/core';

export type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '<' | '<=' | '>' | '>=' | '==' | '!=' | 'and' | 'or';
export type UnaryOperator = '-' | 'not';

interface At {
  /** 1-based column of the node's first character in the expression. */
  column: number;
}

export type Expression =
  | (At & { kind: 'number'; value: number })
  | (At & { kind: 'string'; value: string })
  | (At & { kind: 'boolean'; value: boolean })
  /** A field of the element in context (the measured one, or the child a predicate is testing). */
  | (At & { kind: 'field'; name: string })
  /** A level name as an argument: `count(ToolCall)`. */
  | (At & { kind: 'level'; level: OntologyLevel })
  /** A field of the children at a level: `sum(LLMCall.total_tokens)`. */
  | (At & { kind: 'path'; level: OntologyLevel; field: string })
  | (At & { kind: 'call'; name: string; args: Expression[] })
  | (At & { kind: 'unary'; operator: UnaryOperator; operand: Expression })
  | (At & { kind: 'binary'; operator: BinaryOperator; left: Expression; right: Expression });

/** An expression problem at a column of the source text (a syntax error, an unknown field, a type mismatch, …). */
export class ExpressionError extends Error {
  constructor(
    readonly column: number,
    readonly reason: string,
  ) {
    super(`column ${column}: ${reason}`);
    this.name = 'ExpressionError';
  }
}
