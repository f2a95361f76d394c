// SQL fragments: values are bound parameters in order, fragments splice in with their values renumbered, names
// chosen in code are checked.
import t from 'tap';
import { sql } from '@quad/core';
import { compileSql } from '../../core/src/db/sql.js';

t.test('values become $n parameters; text never holds them', async (t) => {
  const hostile = "x'); drop table users; --";
  t.same(compileSql(sql`select * from t where a = ${1} and b = ${hostile}`), { text: 'select * from t where a = $1 and b = $2', values: [1, hostile] });
  t.same(compileSql(sql`select 1`), { text: 'select 1', values: [] });
});

t.test('nested fragments and joins keep their values in order', async (t) => {
  const byLabel = (label: string) => sql`label = ${label}`;
  const where = sql.join([byLabel('a'), sql`id > ${5}`, byLabel('b')], sql` and `);
  t.same(compileSql(sql`select ${sql.identifier('label')} from t where ${where} limit ${10}`), {
    text: 'select "label" from t where label = $1 and id > $2 and label = $3 limit $4',
    values: ['a', 5, 'b', 10],
  });
  t.same(compileSql(sql`insert into t (a, b) values (${sql.join([sql`${1}`, sql`${2}`])})`), { text: 'insert into t (a, b) values ($1, $2)', values: [1, 2] });
  t.same(compileSql(sql`select ${sql.join([])}`), { text: 'select ', values: [] }, 'an empty join is empty');
});

t.test('an identifier that is not a plain name is refused', async (t) => {
  for (const name of ['Label', 'a b', 'x"; drop', '', '1a']) t.throws(() => sql.identifier(name), /Not an SQL identifier/, name);
});
