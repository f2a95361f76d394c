// The EntityManager of every request, job and tool call: MikroORM's, with a short path for the most common read (issue
// 12). `em.findOne` goes through MikroORM's general machinery on every call — populate hints, result cache, joined
// filters, locks, each an `await` — which took about half the time of a one-row read whose SQL the driver already
// sends as a prepared statement (prepared-finds.ts). A findOne that uses none of that (no populate, fields, lock,
// cache, refresh, filters option or schema; an entity with no eager relation, no discriminator and no to-one
// relation a filter could join) takes the steps MikroORM's findOne takes for it, in the same order: the identity
// map, the auto-flush, the filters (the org filter), the driver's find, the entity made and registered, the onLoad
// events. Everything else is MikroORM's own findOne.
import { helper, ReferenceKind, Utils, type EntityMetadata, type EntityName, type FilterQuery, type FindOneOptions, type Loaded } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';

/** Options that leave the short path as it is: an order for the driver, the flush mode for the auto-flush. */
const SHORT_PATH_OPTIONS = new Set(['orderBy', 'flushMode']);

/** Per entity: may its findOne take the short path? (its metadata does not change once discovered) */
const eligible = new WeakMap<EntityMetadata<any>, boolean>();

export class QuadEntityManager extends EntityManager {
  /** How many findOnes took the short path, in this process (tests check which finds take it). */
  static shortPathFinds = 0;

  override async findOne<Entity extends object, Hint extends string = never, Fields extends string = '*', Excludes extends string = never>(
    entityName: EntityName<Entity>, where: FilterQuery<NoInfer<Entity>>, options: FindOneOptions<Entity, Hint, Fields, Excludes> = {},
  ): Promise<Loaded<Entity, Hint, Fields, Excludes> | null> {
    const em = this.getContext();
    const meta = this.shortPathMeta(em, entityName, options);
    if (!meta) return super.findOne(entityName, where, options);
    QuadEntityManager.shortPathFinds++;
    const uow = em.getUnitOfWork();
    let entity = uow.tryGetById<Entity>(meta.className, where as FilterQuery<Entity>);
    // An entity created here but not yet flushed: MikroORM answers it as it is.
    if (entity && !helper(entity).__managed) return entity as Loaded<Entity, Hint, Fields, Excludes>;
    await em.tryFlush(meta.className, options);
    const filtered = await em.processWhere(meta.className, where as FilterQuery<Entity>, options, 'read');
    em.getValidator().validateEmptyWhere(filtered);
    if (!entity || em.shouldRefresh(meta, entity, options)) {
      em.getValidator().validateParams(filtered);
      const data = await em.getDriver().findOne<Entity>(meta.className, filtered as never, { ...options, ctx: em.getTransactionContext(), em, populate: [] } as never);
      if (!data) return null;
      entity = em.getEntityFactory().create<Entity>(meta.className, data, { merge: true, convertCustomTypes: true });
      await uow.dispatchOnLoadEvent();
    }
    // What MikroORM's populate step does with nothing to populate: the entity serializes without relations.
    helper(entity).setSerializationContext({ populate: [] });
    return entity as Loaded<Entity, Hint, Fields, Excludes>;
  }

  /** The entity's metadata when this findOne may take the short path; undefined when MikroORM's own must answer. */
  private shortPathMeta<Entity extends object>(em: this, entityName: EntityName<Entity>, options: object): EntityMetadata<Entity> | undefined {
    if (em.schema !== undefined || em.config.get('resultCache').global) return;
    for (const [key, value] of Object.entries(options)) if (value !== undefined && !SHORT_PATH_OPTIONS.has(key)) return;
    const meta = em.getMetadata().find<Entity>(Utils.className(entityName));
    if (!meta) return;
    let ok = eligible.get(meta);
    if (ok === undefined) eligible.set(meta, ok = this.plainEntity(meta));
    return ok ? meta : undefined;
  }

  /** Nothing about the entity makes a findOne of it populate or join: see MikroORM's preparePopulate. */
  private plainEntity(meta: EntityMetadata<any>): boolean {
    const noGlobalFilters = Utils.isEmpty(this.config.get('filters'));
    const filterJoins = this.config.get('autoJoinRefsForFilters') && meta.relations.some((prop) =>
      (prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE)
      && (!noGlobalFilters || !Utils.isEmpty(prop.targetMeta?.filters) || !Utils.isEmpty((prop as { filters?: object }).filters)));
    return !meta.virtual && !meta.discriminatorValue && !meta.discriminatorColumn && !meta.props.some((p) => p.eager) && !filterJoins;
  }
}
