/** The parser's precedence and associativity against a reference: random arithmetic, printed and evaluated. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkExpression, evaluate, parseExpression } from '@mce/provider-sdk';
import { twoAgentSession } from './sessions.js';

type Tree = { op: '+' | '-' | '*'; left: Tree; right: Tree } | { n: number };

const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: 0, max: 20 }).map((n) => ({ n })),
    fc.record({ op: fc.constantFrom('+' as const, '-' as const, '*' as const), left: tie('tree'), right: tie('tree') }),
  ),
})).tree;

const value = (t: Tree): number => ('n' in t ? t.n : t.op === '+' ? value(t.left) + value(t.right) : t.op === '-' ? value(t.left) - value(t.right) : value(t.left) * value(t.right));
/** Printed with the fewest parentheses: the parser must restore the tree from precedence and left associativity. */
const RANK = { '+': 1, '-': 1, '*': 2 } as const;
function print(t: Tree): string {
  if ('n' in t) return String(t.n);
  const side = (child: Tree, right: boolean) => {
    const text = print(child);
    if ('n' in child) return text;
    const looser = RANK[child.op] < RANK[t.op] || (right && RANK[child.op] === RANK[t.op]);
    return looser ? `(${text})` : text;
  };
  return `${side(t.left, false)} ${t.op} ${side(t.right, true)}`;
}

describe('expression arithmetic', () => {
  it('evaluates as the tree it was printed from', () => {
    const session = twoAgentSession();
    fc.assert(
      fc.property(tree, (t) => {
        const parsed = parseExpression(print(t));
        checkExpression(parsed, ['Session']);
        expect(evaluate(parsed, { session, element: session, level: 'Session' })).toBe(value(t));
      }),
      { numRuns: 300 },
    );
  });
});
