// The org-bound handle: how module code reaches org tables (README "Org isolation"). Every route, tool, job, event
// handler and dashboard section gets one as `db`, bound to its org and sharing the call's transaction with its
// EntityManager (`db.em`):
//
//   const rows = await db.sql<MonitorRow>`select * from uptime_monitors where ${db.inOrg()} and id = ${id}`;
//
// Values are bound parameters, never text. Every statement runs in a transaction bound to the org, where row-level
// security shows and accepts only the org's rows (the service connects as DATABASE_SERVICE_ROLE); `db.inOrg()` says
// which rows are meant and lets the planner use the org's indexes. `db.org` is the org's id, for a row's
// organization_id on insert. Work across orgs goes through services.acrossOrgs (across-orgs.ts), never this handle.
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import type { QuadEntityManager } from './entity-manager.js';
import { statementsOn, type StatementResult } from './raw-query.js';
import { compileSql, sql, SqlFragment } from './sql.js';
import type { PreparedQuery } from './statement.js';

type Values = unknown[];

/**
 * Statements on whatever `em` works on now: its explicit transaction, or its binding (each statement alone); an
 * EntityManager with neither sends them on its pool unbound, where row-level security shows and takes no org's rows.
 */
function send<R>(em: EntityManager, statement: SqlFragment | PreparedQuery): Promise<StatementResult<R>> {
  const ctx = em.getTransactionContext<Knex.Transaction>();
  return statementsOn(ctx?.client ?? em.getConnection().getKnex().client)<R>(statement instanceof SqlFragment ? compileSql(statement) : statement);
}

/** Statements on an EntityManager's connection: the org-bound handle's and the cross-org path's. */
export class SqlHandle {
  /** @internal */
  constructor(readonly em: EntityManager) {}

  /** Run a statement; its rows. */
  async sql<R = Record<string, unknown>>(strings: TemplateStringsArray, ...values: Values): Promise<R[]> {
    return (await send<R>(this.em, sql(strings, ...values))).rows;
  }

  /** Run a statement; its first row, or null. */
  async one<R = Record<string, unknown>>(strings: TemplateStringsArray, ...values: Values): Promise<R | null> {
    return (await send<R>(this.em, sql(strings, ...values))).rows[0] ?? null;
  }

  /** Run a statement; how many rows it wrote (or read). */
  async run(strings: TemplateStringsArray, ...values: Values): Promise<number> {
    return (await send(this.em, sql(strings, ...values))).rowCount ?? 0;
  }

  /** Run a fragment built with `sql` (a statement put together in parts); its rows. */
  async query<R = Record<string, unknown>>(fragment: SqlFragment): Promise<R[]> {
    return (await send<R>(this.em, fragment)).rows;
  }

  /** Run a named statement made by `prepared(name, sql`…`)` (sql.ts): the core's statements on every call. */
  async prepared<R = Record<string, unknown>>(statement: PreparedQuery): Promise<StatementResult<R>> {
    return send<R>(this.em, statement);
  }
}

export class OrgDb extends SqlHandle {
  /** The org every statement of this handle is bound to. */
  readonly org: number;

  /** @internal Made by orgDb(em), or orgDbFor(em, org) for an EntityManager bound to no org. */
  constructor(em: EntityManager, org?: number) {
    super(em);
    const bound = (em as QuadEntityManager).boundOrgId ?? org;
    if (bound === undefined) throw new Error('An org-bound handle needs an EntityManager bound to an org');
    this.org = bound;
  }

  /**
   * The org condition as a bound value: `organization_id = $n`, or `<alias>.organization_id = $n`. Row-level
   * security keeps other orgs' rows out already; the condition says which rows are meant and lets the planner use
   * an index on the org.
   */
  inOrg(alias?: string): SqlFragment {
    return alias === undefined ? sql`organization_id = ${this.org}` : sql`${sql.identifier(alias)}.organization_id = ${this.org}`;
  }

  /**
   * `work` in one transaction bound to the org (nested: a savepoint), with a handle whose statements and
   * EntityManager are in it. Committed when `work` resolves (after the EntityManager's flush), rolled back when
   * it throws.
   */
  transaction<T>(work: (db: OrgDb) => Promise<T>): Promise<T> {
    return this.em.transactional((em) => work(orgDb(em)));
  }
}

const handles = new WeakMap<EntityManager, OrgDb>();

/** The org-bound handle of an org-bound EntityManager (one per EntityManager). */
export function orgDb(em: EntityManager): OrgDb {
  let db = handles.get(em);
  if (!db) handles.set(em, (db = new OrgDb(em)));
  return db;
}

/**
 * The handle for work on `orgId`'s rows through `em`: how a core service given an EntityManager and an org id
 * (secrets, problems, the dashboard) reaches the org's tables. An `em` bound to another org is refused; one bound
 * to none (the owner's, in the CLI and tests; the cross-org path's) names the org in the handle's conditions, and
 * on the service role row-level security then shows it nothing.
 */
export function orgDbFor(em: EntityManager, orgId: number): OrgDb {
  const bound = (em as QuadEntityManager).boundOrgId;
  if (bound === undefined) return new OrgDb(em, orgId);
  if (bound !== orgId) throw new Error(`This EntityManager is bound to org ${bound}, not to org ${orgId}`);
  return orgDb(em);
}

/** A context (of a tool, job, event handler or dashboard section) with `db`: its EntityManager's handle, made on
 *  first use (a context whose work sends no SQL of its own pays nothing for it). */
export function withDb<C extends { em: EntityManager }>(context: C): C & { readonly db: OrgDb } {
  return Object.defineProperty(context, 'db', { get: () => orgDb(context.em), enumerable: true }) as C & { readonly db: OrgDb };
}
