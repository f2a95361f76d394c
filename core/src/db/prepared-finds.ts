// Simple finds answered by one prepared statement per query shape (issue 12). MikroORM 6 builds every find through
// its query builder and knex, which costs several times the read itself; most reads of the modules are equality on
// columns with an order and a limit. For those the driver writes the SQL once per shape, sends it as a named
// prepared statement on the same connection (the request's transaction, if any) and maps the rows with MikroORM's
// own mapper, so the entity manager receives exactly what the query builder would have returned: filters (the org
// filter) are already in `where`, identity map, flush and hydration stay MikroORM's. Anything else — operators,
// relations to populate, locks, custom SQL types, formulas, query logging — takes MikroORM's own path.
import { QueryFlag, ReferenceKind, Utils, type Dictionary, type EntityData, type EntityMetadata, type EntityProperty, type FindOptions, type ObjectQuery, PopulatePath } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import { onClient } from './raw-query.js';
import { transactionCause } from './transaction-cause.js';

interface Plan { name: string; text: string }
type Condition = [column: string, value: unknown];

/** Options a simple find may carry: they change nothing about a one-table select without joins. */
const NEUTRAL_OPTIONS = new Set([
  'populate', 'orderBy', 'limit', 'offset', 'flags', 'ctx', 'em', 'filters', 'populateWhere', '_populateWhere', 'populateFilter',
  'populateOrderBy', 'strategy', 'refresh', 'convertCustomTypes', 'disableIdentityMap', 'connectionType', 'cache', 'flushMode',
  'failHandler', 'strict', 'loggerContext', 'logging', 'schema',
]);
const ORDER = /^(asc|desc)( nulls (first|last))?$/i;
const COLUMN_KINDS = new Set<string>([ReferenceKind.SCALAR, ReferenceKind.MANY_TO_ONE]);

export class QuadPostgreSqlDriver extends PostgreSqlDriver {
  /** How many finds were answered by a prepared statement (tests check that simple finds take this path). */
  preparedFinds = 0;
  private readonly plans = new LRUCache<string, Plan>({ max: 2000 });
  private readonly columnsOf = new WeakMap<EntityMetadata, string | null>();
  private nextPlan = 0;

  constructor(...args: ConstructorParameters<typeof PostgreSqlDriver>) {
    super(...args);
    // Every statement MikroORM sends (flushes, query builders, raw execute) passes here: see transaction-cause.ts.
    const connection = this.connection;
    const execute = connection.execute.bind(connection);
    connection.execute = (async (...call: Parameters<typeof execute>) => {
      try {
        return await execute(...call);
      } catch (err) {
        throw await transactionCause(err, call[3]);
      }
    }) as typeof connection.execute;
  }

  override async find<T extends object, P extends string = never, F extends string = PopulatePath.ALL, E extends string = never>(
    entityName: string, where: ObjectQuery<T>, options: FindOptions<T, P, F, E> = {},
  ): Promise<EntityData<T>[]> {
    const meta = this.metadata.find<T>(entityName);
    const statement = meta && this.simpleSelect(meta, where, options as FindOptions<T>);
    if (!statement) return super.find(entityName, where, options);
    const rows = await this.rethrow(onClient((options.ctx ?? this.connection.getKnex()).client)<EntityData<T>>(statement)
      .catch(async (err: unknown) => { throw await transactionCause(err, options.ctx); }));
    this.preparedFinds++;
    return rows.map((row) => this.mapResult(row, meta!)!);
  }

  /** The prepared statement for a simple find, or undefined when MikroORM's own path must answer it. */
  private simpleSelect<T extends object>(meta: EntityMetadata<T>, where: ObjectQuery<T>, options: FindOptions<T>) {
    // Query logging and read replicas are MikroORM's business: keep its path wherever either is on.
    if (this.config.get('debug') || this.config.get('replicas')?.length || (options.logging as { enabled?: boolean } | undefined)?.enabled) return;
    for (const [key, value] of Object.entries(options)) if (value !== undefined && !NEUTRAL_OPTIONS.has(key)) return;
    if (options.schema !== undefined || (options.populate as unknown[] | undefined)?.length) return;
    if (!Utils.asArray(options.flags).every((f) => f === QueryFlag.DISABLE_PAGINATE)) return;
    if (this.autoJoinOneToOneOwner(meta, [], undefined).length) return;
    const columns = this.selectList(meta);
    const conditions: Condition[] = [];
    const order: string[] = [];
    if (columns == null || !this.conditions(meta, where, conditions) || !this.orderBy(meta, options.orderBy, order)) return;
    const { limit, offset } = options;
    if ((limit != null && !Number.isSafeInteger(limit)) || (offset != null && !Number.isSafeInteger(offset))) return;

    const shape = [meta.className, ...conditions.map(([c, v]) => (v === null ? `${c}:null` : c)), '|', ...order,
      limit != null ? 'L' : '', offset != null ? 'O' : ''].join(',');
    const values = conditions.filter(([, v]) => v !== null).map(([, v]) => v);
    if (limit != null) values.push(limit);
    if (offset != null) values.push(offset);
    return { ...this.plan(shape, meta, columns, conditions, order, limit, offset), values };
  }

  private plan(shape: string, meta: EntityMetadata, columns: string, conditions: Condition[], order: string[], limit?: number, offset?: number): Plan {
    const known = this.plans.get(shape);
    if (known) return known;
    const q = (id: string) => this.platform.quoteIdentifier(id);
    const schema = this.getSchemaName(meta);
    const table = schema && schema !== this.platform.getDefaultSchemaName() ? `${q(schema)}.${q(meta.tableName)}` : q(meta.tableName);
    let n = 0;
    const where = conditions.map(([column, v]) => (v === null ? `e0.${q(column)} is null` : `e0.${q(column)} = $${++n}`));
    const text = [
      `select ${columns} from ${table} as e0`,
      where.length ? `where ${where.join(' and ')}` : '',
      order.length ? `order by ${order.join(', ')}` : '',
      limit != null ? `limit $${++n}` : '',
      offset != null ? `offset $${++n}` : '',
    ].filter(Boolean).join(' ');
    const plan = { name: `quad_find_${++this.nextPlan}`, text };
    this.plans.set(shape, plan);
    return plan;
  }

  /** The columns MikroORM selects for the entity (`e0.*` would break prepared statements when a column is added). */
  private selectList(meta: EntityMetadata): string | null {
    if (this.columnsOf.has(meta)) return this.columnsOf.get(meta)!;
    const simple = !meta.virtual && !meta.expression && !meta.discriminatorColumn && !meta.embeddable && !(meta as { orderBy?: unknown }).orderBy
      && meta.props.every((p) => !p.lazy && !p.formula && p.kind !== ReferenceKind.EMBEDDED && (p.fieldNames?.length ?? 0) <= 1);
    const list = simple
      ? meta.props.filter((p) => p.persist !== false && p.fieldNames?.length && (COLUMN_KINDS.has(p.kind) || (p.kind === ReferenceKind.ONE_TO_ONE && p.owner)))
        .map((p) => this.selected(p)).join(', ')
      : null;
    this.columnsOf.set(meta, list || null);
    return list || null;
  }

  /** One column as MikroORM reads it: through its type's SQL conversion when it has one (a JSON cast). */
  private selected(prop: EntityProperty): string {
    const column = this.platform.quoteIdentifier(prop.fieldNames[0]);
    const toJs = prop.customType?.convertToJSValueSQL;
    return toJs ? `${toJs.call(prop.customType, `e0.${column}`, this.platform)} as ${column}` : `e0.${column}`;
  }

  /** Flattens `where` (and its filters' `$and`) into column equalities; false for anything else. */
  private conditions(meta: EntityMetadata, where: unknown, out: Condition[]): boolean {
    if (Utils.isPrimaryKey(where) && meta.primaryKeys.length === 1) where = { [meta.primaryKeys[0]]: where };
    if (!Utils.isPlainObject(where)) return false;
    for (const [key, value] of Object.entries(where as Dictionary)) {
      if (key === '$and') {
        if (!Array.isArray(value) || !value.every((part) => this.conditions(meta, part, out))) return false;
        continue;
      }
      const prop = meta.properties[key] as EntityProperty | undefined;
      const column = prop && this.column(prop);
      const bound = column && this.bindable(prop!, value);
      if (!bound) return false;
      out.push([column!, bound.value]);
    }
    return true;
  }

  private column(prop: EntityProperty): string | undefined {
    const single = prop.persist !== false && prop.fieldNames?.length === 1;
    const kindOk = COLUMN_KINDS.has(prop.kind) || (prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner);
    return single && kindOk && !prop.customType?.convertToDatabaseValueSQL ? prop.fieldNames[0] : undefined;
  }

  /** A value the column can be compared with as one parameter, converted as MikroORM would; undefined if not. */
  private bindable(prop: EntityProperty, value: unknown): { value: unknown } | undefined {
    if (value === null) return { value };
    const primitive = ['string', 'number', 'boolean', 'bigint'].includes(typeof value) || value instanceof Date;
    if (!primitive) return undefined;
    const type = prop.kind === ReferenceKind.SCALAR ? prop.customType : undefined;
    return { value: type ? type.convertToDatabaseValue(value, this.platform, { fromQuery: true, key: prop.name, mode: 'query' }) : value };
  }

  private orderBy(meta: EntityMetadata, orderBy: unknown, out: string[]): boolean {
    for (const part of Utils.asArray(orderBy as Dictionary | Dictionary[] | undefined)) {
      if (!Utils.isPlainObject(part)) return false;
      for (const [key, direction] of Object.entries(part)) {
        const prop = meta.properties[key] as EntityProperty | undefined;
        const column = prop && this.column(prop);
        const sql = direction === 1 ? 'asc' : direction === -1 ? 'desc' : typeof direction === 'string' && ORDER.test(direction) ? direction.toLowerCase() : undefined;
        if (!column || !sql) return false;
        out.push(`e0.${this.platform.quoteIdentifier(column)} ${sql}`);
      }
    }
    return true;
  }
}
