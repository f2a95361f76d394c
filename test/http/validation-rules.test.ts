// The two rules the core's validator adds to every route's schema, on their own: integers bounded to what a
// JavaScript number holds exactly, and one walk that finds what PostgreSQL cannot store.
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { boundIntegers, MAX_NESTING, textProblem, unstorableValue } from '../../core/src/http/validation.js';

const SAFE = Number.MAX_SAFE_INTEGER;

t.test('boundIntegers', async (t) => {
  const schema = Type.Object({
    page: Type.Integer({ minimum: 1, maximum: 10 }),
    id: Type.Integer({ minimum: 1 }),
    free: Type.Integer(),
    maybe: Type.Union([Type.Integer(), Type.Null()]),
    list: Type.Array(Type.Integer({ maximum: 2 ** 60 })),
    x: Type.Number(),
    pick: Type.Union([Type.Literal(1), Type.Literal(2)], { default: 1 }),
  });
  const original = JSON.stringify(schema);
  const bounded = boundIntegers(schema) as any;
  t.match(bounded.properties.page, { minimum: 1, maximum: 10 }, 'tighter bounds stay');
  t.match(bounded.properties.id, { minimum: 1, maximum: SAFE });
  t.match(bounded.properties.free, { minimum: -SAFE, maximum: SAFE });
  t.match(bounded.properties.maybe.anyOf[0], { minimum: -SAFE, maximum: SAFE }, 'inside unions');
  t.match(bounded.properties.list.items, { maximum: SAFE }, 'a looser maximum is narrowed');
  t.notOk('maximum' in bounded.properties.x, 'numbers are left alone (the walk refuses non-finite ones)');
  t.equal(JSON.stringify(schema), original, 'the route\'s schema (its OpenAPI document) is not changed');
  t.equal(boundIntegers(schema), bounded, 'one copy per schema, so ajv compiles a shared schema once');
  t.same(boundIntegers({ type: ['integer', 'null'] }), { type: ['integer', 'null'], minimum: -SAFE, maximum: SAFE });
  t.same(boundIntegers({ enum: [{ type: 'integer' }] }), { enum: [{ type: 'integer' }] }, 'data keywords are data');
});

t.test('textProblem', async (t) => {
  t.equal(textProblem('plain text, émoji 😀 and ∑'), null);
  t.match(textProblem('a\u0000b'), /NUL/);
  t.match(textProblem('\ud800'), /lone UTF-16 surrogate/);
  t.match(textProblem('x\udc00'), /lone UTF-16 surrogate/);
  t.match(textProblem('\ude00\ud83d'), /lone UTF-16 surrogate/, 'a pair in the wrong order is two lone halves');
  t.equal(textProblem('\ud83d\ude00'), null, 'a pair is one character');
});

t.test('unstorableValue', async (t) => {
  t.equal(unstorableValue({ a: ['x', 1, 1e300, null, true, { b: 'ok' }] }), null);
  t.match(unstorableValue({ a: ['x', { b: 'y\u0000' }] }), { instancePath: '/a/1/b', message: /NUL/ });
  t.match(unstorableValue({ 'a/b': { '~': '\ud800' } }), { instancePath: '/a~1b/~0' }, 'keys are escaped like JSON pointers');
  t.match(unstorableValue({ list: { ['k\u0000']: 1 } }), { instancePath: '/list', message: /property names/ });
  t.match(unstorableValue({ n: Infinity }), { instancePath: '/n', message: 'must be a finite number' });
  t.match(unstorableValue([1, -Infinity]), { instancePath: '/1' });
  t.match(unstorableValue({ first: '\u0000', second: '\u0000' }), { instancePath: '/first' }, 'the first in document order');
  t.match(unstorableValue('\u0000'), { instancePath: '' }, 'the root itself');

  let deep: unknown = 'leaf';
  for (let i = 0; i < MAX_NESTING; i++) deep = [deep];
  t.equal(unstorableValue(deep), null, `${MAX_NESTING} levels are fine`);
  t.match(unstorableValue([deep]), { message: /nested/ });
  let hostile: unknown = [];
  for (let i = 0; i < 200_000; i++) hostile = [hostile];
  t.match(unstorableValue(hostile), { message: /nested/ }, 'no stack overflow on hostile nesting');
});
