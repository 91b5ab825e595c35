/**
 * The static check of a parsed expression against the levels it is computed at: every field exists where it is
 * read, every function is known and called right, operands have the types their operators take, and the whole
 * yields a number (or a condition, counted 1 or 0). Run when the configuration is loaded, so that a mistake is
 * reported there, at its column, and never in the middle of a run.
 */
import { ONTOLOGY_LEVELS, type OntologyLevel } from '@mce/core';
import { ExpressionError, type Expression } from './ast.js';
import { fieldAt, type ValueType } from './fields.js';
import { FUNCTIONS, functionSpec } from './functions.js';

interface Context {
  /** Where a bare field is read: the measured element's levels, or the child level inside a condition. */
  levels: readonly OntologyLevel[];
  /** What a bare field is, for messages. */
  subject: string;
}

const typeName = (type: ValueType) => (type === 'boolean' ? 'condition' : type);

function expectType(expression: Expression, context: Context, want: ValueType, role: string): void {
  const got = typeOf(expression, context);
  if (got !== want) throw new ExpressionError(expression.column, `${role} must be a ${typeName(want)}, not a ${typeName(got)}`);
}

function childLevel(expression: Expression, name: string): OntologyLevel {
  if (expression.kind === 'field') throw new ExpressionError(expression.column, `"${expression.name}" is not a level (levels: ${ONTOLOGY_LEVELS.join(', ')})`);
  if (expression.kind !== 'level') throw new ExpressionError(expression.column, `${name}() counts children at a level: write ${name}(ToolCall${name === 'share' ? ', condition' : ''})`);
  if (expression.level === 'Session') throw new ExpressionError(expression.column, 'a Session is never the child of an element: name a call level');
  return expression.level;
}

function checkCall(expression: Extract<Expression, { kind: 'call' }>): ValueType {
  const spec = functionSpec(expression.name);
  if (!spec) throw new ExpressionError(expression.column, `unknown function "${expression.name}" (functions: ${Object.keys(FUNCTIONS).join(', ')})`);
  const [first, condition, ...extra] = expression.args;
  const arity = spec.predicate === 'required' ? '2 arguments' : '1 or 2 arguments';
  if (!first || extra.length > 0 || (spec.predicate === 'required' && !condition)) {
    throw new ExpressionError(expression.column, `${expression.name}() takes ${arity}, got ${expression.args.length}`);
  }
  let level: OntologyLevel;
  if (spec.over === 'level') level = childLevel(first, expression.name);
  else {
    if (first.kind !== 'path') throw new ExpressionError(first.column, `${expression.name}() takes a field of a level: write ${expression.name}(LLMCall.total_tokens)`);
    if (first.level === 'Session') throw new ExpressionError(first.column, 'a Session is never the child of an element: name a call level');
    level = first.level;
    const field = fieldAt(first.field, [level]);
    if (typeof field === 'string') throw new ExpressionError(first.column, field);
    if (field.type !== 'number') throw new ExpressionError(first.column, `${expression.name}() needs a numeric field; ${level}.${first.field} is a ${field.type}`);
  }
  if (condition) expectType(condition, { levels: [level], subject: `each ${level}` }, 'boolean', `the condition of ${expression.name}()`);
  return 'number';
}

/** The type of an expression in its context; throws ExpressionError at the first problem. */
export function typeOf(expression: Expression, context: Context): ValueType {
  switch (expression.kind) {
    case 'number':
    case 'string':
    case 'boolean':
      return expression.kind;
    case 'field': {
      const field = fieldAt(expression.name, context.levels);
      if (typeof field === 'string') throw new ExpressionError(expression.column, `${field} (read from ${context.subject})`);
      return field.type;
    }
    case 'level':
      throw new ExpressionError(expression.column, `${expression.level} is a level, not a value: count(${expression.level}) counts its calls`);
    case 'path':
      throw new ExpressionError(expression.column, `${expression.level}.${expression.field} is a list of values: take its sum(), mean(), min() or max()`);
    case 'call':
      return checkCall(expression);
    case 'unary':
      expectType(expression.operand, context, expression.operator === 'not' ? 'boolean' : 'number', `the operand of ${expression.operator}`);
      return expression.operator === 'not' ? 'boolean' : 'number';
    case 'binary': {
      const { operator, left, right } = expression;
      if (operator === 'and' || operator === 'or') {
        expectType(left, context, 'boolean', `the left side of ${operator}`);
        expectType(right, context, 'boolean', `the right side of ${operator}`);
        return 'boolean';
      }
      if (operator === '==' || operator === '!=') {
        const [leftType, rightType] = [typeOf(left, context), typeOf(right, context)];
        if (leftType !== rightType) {
          throw new ExpressionError(right.column, `${operator} compares values of one type: the left side is a ${typeName(leftType)}, the right side a ${typeName(rightType)}`);
        }
        return 'boolean';
      }
      expectType(left, context, 'number', `the left side of ${operator}`);
      expectType(right, context, 'number', `the right side of ${operator}`);
      return ['<', '<=', '>', '>='].includes(operator) ? 'boolean' : 'number';
    }
  }
}

/** Checks an expression computed at `levels`: it must yield a number or a condition. */
export function checkExpression(expression: Expression, levels: readonly OntologyLevel[]): ValueType {
  const type = typeOf(expression, { levels, subject: `the measured element (${levels.join(', ')})` });
  if (type === 'string') throw new ExpressionError(expression.column, 'the expression yields a string: a metric is a number (or a condition, counted 1 or 0)');
  return type;
}
