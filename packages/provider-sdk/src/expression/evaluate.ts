/**
 * The interpreter of checked expressions over one element. It reads only whitelisted fields and calls only the
 * language's functions: nothing in an expression can reach code. A division by zero, an aggregate over no child or
 * a field the trace did not record throws an EvaluationError: the element's result fails, it is never a number.
 */
import type { CallLevel, Element, OntologyLevel, Session } from '@mce/core';
import type { Expression } from './ast.js';
import { childrenAt } from './children.js';
import { FIELDS, type Value } from './fields.js';

export class EvaluationError extends Error {
  constructor(
    readonly column: number,
    reason: string,
  ) {
    super(`column ${column}: ${reason}`);
    this.name = 'EvaluationError';
  }
}

export interface Scope {
  session: Session;
  /** The measured element (or, inside a condition, the child tested). */
  element: Element;
  level: OntologyLevel;
}

const describeElement = (scope: Scope) => (scope.level === 'Session' ? `session ${scope.element.id}` : `${scope.level} ${scope.element.id}`);

function readField(name: string, scope: Scope, column: number): Value {
  const value = FIELDS[name]!.read(scope.element);
  if (value === undefined) throw new EvaluationError(column, `${describeElement(scope)} has no recorded ${name}`);
  return value;
}

const number = (value: Value) => value as number;
const condition = (value: Value) => value as boolean;

function aggregate(expression: Extract<Expression, { kind: 'call' }>, scope: Scope): number {
  const [first, test] = expression.args as [Expression, Expression | undefined];
  const level = (first.kind === 'level' || first.kind === 'path' ? first.level : 'ToolCall') as CallLevel;
  const children = childrenAt(scope.session, scope.element, scope.level, level);
  const childScope = (child: Element): Scope => ({ session: scope.session, element: child, level });
  const kept = test ? children.filter((child) => condition(evaluate(test, childScope(child)))) : children;
  const name = expression.name;
  if (name === 'count') return kept.length;
  if (name === 'share') {
    if (children.length === 0) throw new EvaluationError(expression.column, `share() over no ${level}: ${describeElement(scope)} has none, the share is undefined`);
    return kept.length / children.length;
  }
  const field = (first as Extract<Expression, { kind: 'path' }>).field;
  const values = kept.map((child) => number(readField(field, childScope(child), first.column)));
  if (name === 'sum') return values.reduce((a, b) => a + b, 0);
  if (values.length === 0) throw new EvaluationError(expression.column, `${name}() over no ${level}${test ? ' meeting the condition' : ''}: ${describeElement(scope)} has none`);
  if (name === 'mean') return values.reduce((a, b) => a + b, 0) / values.length;
  return name === 'min' ? Math.min(...values) : Math.max(...values);
}

function arithmetic(expression: Extract<Expression, { kind: 'binary' }>, left: number, right: number): number {
  switch (expression.operator) {
    case '+':
      return left + right;
    case '-':
      return left - right;
    case '*':
      return left * right;
    default: {
      if (right === 0) throw new EvaluationError(expression.column, `division by zero (the right side of ${expression.operator} is 0)`);
      return expression.operator === '/' ? left / right : left % right;
    }
  }
}

function binary(expression: Extract<Expression, { kind: 'binary' }>, scope: Scope): Value {
  const { operator } = expression;
  // and / or short-circuit: `count(LLMCall) > 0 and share(...) > 0.5` never computes the share of nothing.
  if (operator === 'and') return condition(evaluate(expression.left, scope)) && condition(evaluate(expression.right, scope));
  if (operator === 'or') return condition(evaluate(expression.left, scope)) || condition(evaluate(expression.right, scope));
  const left = evaluate(expression.left, scope);
  const right = evaluate(expression.right, scope);
  switch (operator) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    case '<':
      return number(left) < number(right);
    case '<=':
      return number(left) <= number(right);
    case '>':
      return number(left) > number(right);
    case '>=':
      return number(left) >= number(right);
    default:
      return arithmetic(expression, number(left), number(right));
  }
}

/** The value of a checked expression for the element in `scope`. */
export function evaluate(expression: Expression, scope: Scope): Value {
  switch (expression.kind) {
    case 'number':
    case 'string':
    case 'boolean':
      return expression.value;
    case 'field':
      return readField(expression.name, scope, expression.column);
    case 'call':
      return aggregate(expression, scope);
    case 'unary': {
      const operand = evaluate(expression.operand, scope);
      return expression.operator === 'not' ? !condition(operand) : -number(operand);
    }
    case 'binary':
      return binary(expression, scope);
    default:
      // level and path nodes only appear as function arguments (the check refuses them elsewhere)
      throw new EvaluationError(expression.column, `unexpected ${expression.kind} here`);
  }
}
