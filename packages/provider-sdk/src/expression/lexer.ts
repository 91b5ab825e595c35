/** The tokens of an sdk expression: numbers, quoted strings, names, operators and punctuation, each with its column. */
import { ExpressionError } from './ast.js';

export type TokenKind = 'number' | 'string' | 'name' | 'operator' | '(' | ')' | ',' | '.' | 'end';

export interface Token {
  kind: TokenKind;
  text: string;
  column: number;
}

const OPERATORS = ['<=', '>=', '==', '!=', '+', '-', '*', '/', '%', '<', '>'];
const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
/** JavaScript's logical operators, which the language spells as words. */
const WORD_FOR: Record<string, string> = { '&': 'and', '|': 'or', '!': 'not, or != for inequality', '=': '== to compare' };
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

function stringAt(source: string, start: number): { text: string; end: number } {
  const quote = source[start];
  let text = '';
  for (let i = start + 1; i < source.length; i++) {
    const ch = source[i];
    if (ch === quote) return { text, end: i + 1 };
    if (ch === '\\' && i + 1 < source.length) {
      text += source[++i];
      continue;
    }
    text += ch;
  }
  throw new ExpressionError(start + 1, `the string opened here is not closed (missing ${quote})`);
}

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const rest = source.slice(i);
    const column = i + 1;
    const number = NUMBER.exec(rest);
    const name = NAME.exec(rest);
    if (number) {
      tokens.push({ kind: 'number', text: number[0], column });
      i += number[0].length;
    } else if (name) {
      tokens.push({ kind: 'name', text: name[0], column });
      i += name[0].length;
    } else if (ch === '"' || ch === "'") {
      const { text, end } = stringAt(source, i);
      tokens.push({ kind: 'string', text, column });
      i = end;
    } else if (ch === '(' || ch === ')' || ch === ',' || ch === '.') {
      tokens.push({ kind: ch, text: ch, column });
      i++;
    } else {
      const operator = OPERATORS.find((op) => rest.startsWith(op));
      if (!operator) throw new ExpressionError(column, `unexpected character ${JSON.stringify(ch)}${WORD_FOR[ch] ? ` (write ${WORD_FOR[ch]})` : ''}`);
      tokens.push({ kind: 'operator', text: operator, column });
      i += operator.length;
    }
  }
  tokens.push({ kind: 'end', text: '', column: source.length + 1 });
  return tokens;
}
