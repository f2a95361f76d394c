// The statements the core sends on pg connections of its own (no ORM): types only, shared by raw-query.ts and
// org-binding.ts.

/** A named (prepared once per connection) statement; `name` must be unique to its `text`. */
export interface PreparedQuery { name: string; text: string; values: unknown[] }
/** A statement with bound values, prepared once per connection when it has a name. */
export interface Statement { name?: string; text: string; values: unknown[] }
export interface StatementResult<R> { rows: R[]; rowCount: number | null }
