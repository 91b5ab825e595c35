/**
 * The recursive-descent parser of sdk expressions. Hand-written rather than a general JavaScript expression parser
 * (jsep): the language is a dozen rules, and every node needs its column so that a wrong field or function is
 * reported where it is written, which jsep's syntax tree does not carry.
 *
 *   expression := or
 *   or         := and ("or" and)*
 *   and        := not ("and" not)*
 *   not        := "not" not | comparison
 *   comparison := sum (("<" | "<=" | ">" | ">=" | "==" | "!=") sum)?
 *   sum        := product (("+" | "-") product)*
 *   product    := unary (("*" | "/" | "%") unary)*
 *   unary      := "-" unary | primary
 *   primary    := number | string | "true" | "false" | "(" expression ")"
 *               | name "(" [expression ("," expression)*] ")"      a function call
 *               | Level "." field | Level | field
 */
import { ONTOLOGY_LEVELS, type OntologyLevel } from '@mce/core';
import { ExpressionError, type BinaryOperator, type Expression } from './ast.js';
import { tokenize, type Token } from './lexer.js';

const LEVELS = new Set<string>(ONTOLOGY_LEVELS);
const COMPARISONS = new Set(['<', '<=', '>', '>=', '==', '!=']);
const RESERVED = new Set(['and', 'or', 'not', 'true', 'false']);

class Parser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  private get next(): Token {
    return this.tokens[this.position]!;
  }

  private take(): Token {
    const token = this.next;
    if (token.kind !== 'end') this.position++;
    return token;
  }

  private atEnd(): boolean {
    return this.next.kind === 'end';
  }

  private isWord(word: string): boolean {
    return this.next.kind === 'name' && this.next.text === word;
  }

  private isOperator(...operators: string[]): boolean {
    return this.next.kind === 'operator' && operators.includes(this.next.text);
  }

  private expect(kind: Token['kind'], what: string): Token {
    if (this.next.kind !== kind) throw new ExpressionError(this.next.column, `expected ${what}, found ${describe(this.next)}`);
    return this.take();
  }

  parse(): Expression {
    if (this.atEnd()) throw new ExpressionError(1, 'the expression is empty');
    const expression = this.or();
    if (!this.atEnd()) throw new ExpressionError(this.next.column, `expected an operator or the end, found ${describe(this.next)}`);
    return expression;
  }

  private binary(operator: BinaryOperator, left: Expression, right: Expression, column: number): Expression {
    return { kind: 'binary', operator, left, right, column };
  }

  private or(): Expression {
    let left = this.and();
    while (this.isWord('or')) {
      const { column } = this.take();
      left = this.binary('or', left, this.and(), column);
    }
    return left;
  }

  private and(): Expression {
    let left = this.not();
    while (this.isWord('and')) {
      const { column } = this.take();
      left = this.binary('and', left, this.not(), column);
    }
    return left;
  }

  private not(): Expression {
    if (!this.isWord('not')) return this.comparison();
    const { column } = this.take();
    return { kind: 'unary', operator: 'not', operand: this.not(), column };
  }

  private comparison(): Expression {
    const left = this.sum();
    if (this.next.kind !== 'operator' || !COMPARISONS.has(this.next.text)) return left;
    const { text, column } = this.take();
    const right = this.sum();
    if (this.next.kind === 'operator' && COMPARISONS.has(this.next.text)) {
      throw new ExpressionError(this.next.column, 'comparisons do not chain: join them with and');
    }
    return this.binary(text as BinaryOperator, left, right, column);
  }

  private sum(): Expression {
    let left = this.product();
    while (this.isOperator('+', '-')) {
      const { text, column } = this.take();
      left = this.binary(text as BinaryOperator, left, this.product(), column);
    }
    return left;
  }

  private product(): Expression {
    let left = this.unary();
    while (this.isOperator('*', '/', '%')) {
      const { text, column } = this.take();
      left = this.binary(text as BinaryOperator, left, this.unary(), column);
    }
    return left;
  }

  private unary(): Expression {
    if (!this.isOperator('-')) return this.primary();
    const { column } = this.take();
    return { kind: 'unary', operator: '-', operand: this.unary(), column };
  }

  private primary(): Expression {
    const token = this.take();
    const { column } = token;
    if (token.kind === 'number') return { kind: 'number', value: Number(token.text), column };
    if (token.kind === 'string') return { kind: 'string', value: token.text, column };
    if (token.kind === '(') {
      const inner = this.or();
      this.expect(')', '")"');
      return inner;
    }
    if (token.kind !== 'name') throw new ExpressionError(column, `expected a value, found ${describe(token)}`);
    if (token.text === 'true' || token.text === 'false') return { kind: 'boolean', value: token.text === 'true', column };
    if (RESERVED.has(token.text)) throw new ExpressionError(column, `expected a value, found "${token.text}"`);
    if (this.next.kind === '(') return this.call(token);
    if (LEVELS.has(token.text)) {
      const level = token.text as OntologyLevel;
      if (this.next.kind !== '.') return { kind: 'level', level, column };
      this.take();
      const field = this.expect('name', `a field of ${level} after "."`);
      return { kind: 'path', level, field: field.text, column };
    }
    if (this.next.kind === '.') throw new ExpressionError(this.next.column, `"${token.text}" is not a level (one of ${ONTOLOGY_LEVELS.join(', ')}): only a level has fields after "."`);
    return { kind: 'field', name: token.text, column };
  }

  private call(name: Token): Expression {
    this.take(); // (
    const args: Expression[] = [];
    if (this.next.kind !== ')') {
      args.push(this.or());
      while (this.next.kind === ',') {
        this.take();
        args.push(this.or());
      }
    }
    this.expect(')', `"," or ")" to close ${name.text}(`);
    return { kind: 'call', name: name.text, args, column: name.column };
  }
}

function describe(token: Token): string {
  if (token.kind === 'end') return 'the end of the expression';
  if (token.kind === 'string') return `the string ${JSON.stringify(token.text)}`;
  return `"${token.text}"`;
}

/** Parses an expression; throws ExpressionError with the column of the problem. */
export function parseExpression(source: string): Expression {
  return new Parser(tokenize(source)).parse();
}
