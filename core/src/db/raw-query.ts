// The type of the core's raw prepared lookups (made by `rawQuery` in db/orm.ts). Types only: the org cache and the
// revocation list import it without importing the ORM setup (no import cycle through a runtime file).

/** A named (prepared once per connection) statement; `name` must be unique to its `text`. */
export interface PreparedQuery { name: string; text: string; values: unknown[] }
export type RawQuery = <R = Record<string, unknown>>(query: PreparedQuery) => Promise<R[]>;
