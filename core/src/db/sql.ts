// SQL as tagged templates: sql`select * from uptime_monitors where id = ${id}` keeps the text and the values apart,
// so every value is sent as a bound parameter ($1, $2, …) and never written into the text. A fragment may hold
// other fragments (a condition chosen in code, a list joined with sql.join); they are spliced with their values
// renumbered. Names chosen in code (never from input) go in with sql.identifier.
import type { PreparedQuery } from './statement.js';

/** A piece of SQL and its bound values; made by `sql`, run by an org-bound Db (org-db.ts). */
export class SqlFragment {
  /** @internal */
  constructor(readonly strings: readonly string[], readonly values: readonly unknown[]) {}
}

export interface CompiledSql { text: string; values: unknown[] }

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Build a fragment: each `${value}` becomes a bound parameter, each `${fragment}` is spliced in. */
export function sql(strings: TemplateStringsArray | readonly string[], ...values: unknown[]): SqlFragment {
  return new SqlFragment(strings, values);
}

/** Fragments joined by `separator` (default `, `): columns of an insert, conditions of a where. */
sql.join = (fragments: readonly SqlFragment[], separator: SqlFragment = sql`, `): SqlFragment => {
  const values = fragments.flatMap((fragment, i) => (i === 0 ? [fragment] : [separator, fragment]));
  return new SqlFragment(Array<string>(values.length + 1).fill(''), values);
};

/** A table or column name chosen in code: lower-case letters, digits and underscores only, or it throws. */
sql.identifier = (name: string): SqlFragment => {
  if (!IDENTIFIER.test(name)) throw new Error(`Not an SQL identifier: ${JSON.stringify(name)}`);
  return new SqlFragment([`"${name}"`], []);
};

/**
 * A fragment as a named statement, prepared once per connection and then sent as Bind and Execute only: for the
 * core's statements on every call (a tool call's rate check and count, the audit row). The fragment's text must be
 * the same at every use of the name (values change, text never), or PostgreSQL refuses the second text.
 */
export function prepared(name: string, fragment: SqlFragment): PreparedQuery {
  return { name, ...compileSql(fragment) };
}

/** Text with $n placeholders and the values in order; `after`: placeholders before it (the first is $after+1). */
export function compileSql(fragment: SqlFragment, after = 0): CompiledSql {
  const values: unknown[] = [];
  const parts: string[] = [];
  const walk = (f: SqlFragment) => {
    f.strings.forEach((text, i) => {
      parts.push(text);
      if (i >= f.values.length) return;
      const value = f.values[i];
      if (value instanceof SqlFragment) walk(value);
      else parts.push(`$${after + values.push(value)}`);
    });
  };
  walk(fragment);
  return { text: parts.join(''), values };
}
