// The EntityManager of every request, job and tool call: MikroORM's, with a short path for the most common read (issue
// 12). `em.findOne` goes through MikroORM's general machinery on every call — populate hints, result cache, joined
// filters, locks, each an `await` — which took about half the time of a one-row read whose SQL the driver already
// sends as a prepared statement (prepared-finds.ts). A findOne that uses none of that (no populate, fields, lock,
// cache, refresh, filters option or schema; an entity with no eager relation, no discriminator and no to-one
// relation a filter could join) takes the steps MikroORM's findOne takes for it, in the same order: the identity
// map, the auto-flush, the filters (the org filter), the driver's find, the entity made and registered, the onLoad
// events. Everything else is MikroORM's own findOne.
import { helper, ReferenceKind, Utils, type EntityMetadata, type EntityName, type FilterQuery, type FindOneOptions, type ForkOptions, type Loaded, type TransactionOptions } from '@mikro-orm/core';
import { EntityManager, type Knex } from '@mikro-orm/postgresql';
import type { OrgBinding } from './org-binding.js';

/** Options that leave the short path as it is: an order for the driver, the flush mode for the auto-flush. */
const SHORT_PATH_OPTIONS = new Set(['orderBy', 'flushMode']);

/** What about an entity may keep its findOne off the short path; its metadata does not change once discovered. */
interface EntityTraits { populates: boolean; filteredToOne: boolean }
const traitsOf = new WeakMap<EntityMetadata<any>, EntityTraits>();

/** See MikroORM's preparePopulate: eager relations are populated, to-one relations whose target has filters joined. */
function entityTraits(meta: EntityMetadata<any>): EntityTraits {
  let traits = traitsOf.get(meta);
  if (!traits) {
    traits = {
      populates: !!(meta.virtual || meta.discriminatorValue || meta.discriminatorColumn || meta.props.some((p) => p.eager)),
      filteredToOne: meta.relations.some((prop) => (prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE)
        && (!Utils.isEmpty(prop.targetMeta?.filters) || !Utils.isEmpty((prop as { filters?: object }).filters))),
    };
    traitsOf.set(meta, traits);
  }
  return traits;
}

/** The binding as MikroORM holds it: a transaction context. */
const asContext = (binding: OrgBinding) => binding.context as unknown as Knex.Transaction;

export class QuadEntityManager extends EntityManager {
  /** How many findOnes took the short path, in this process (tests check which finds take it). */
  static shortPathFinds = 0;

  /**
   * The org binding (org-binding.ts): outside an explicit transaction it is this EntityManager's transaction
   * context, so every statement runs in a transaction bound to the org; explicit transactions begin bound, and
   * forks inherit it. MikroORM sees a transaction context throughout, so its transactions nest under the binding,
   * which begins them as bound root transactions.
   */
  private orgBinding?: OrgBinding;

  /** Bind this EntityManager (and the forks made from it) to an org. */
  bindOrg(binding: OrgBinding): this {
    this.orgBinding = binding;
    this.setTransactionContext(asContext(binding));
    return this;
  }

  /** The org this EntityManager is bound to, or undefined. */
  get boundOrgId(): number | undefined {
    return (this.getContext(false) as QuadEntityManager).orgBinding?.orgId;
  }

  override fork(options: ForkOptions = {}): this {
    const fork = super.fork(options) as this;
    const binding = ((options.disableContextResolution ? this : this.getContext(false)) as QuadEntityManager).orgBinding;
    if (binding) {
      fork.orgBinding = binding;
      if (!fork.getTransactionContext()) fork.setTransactionContext(asContext(binding));
    }
    return fork;
  }

  /** In an explicit transaction: the binding alone is not one. */
  override isInTransaction(): boolean {
    const em = this.getContext(false) as QuadEntityManager;
    const ctx = em.getTransactionContext();
    return ctx !== undefined && ctx !== (em.orgBinding?.context as unknown);
  }

  /** em.begin() starts a root transaction; bound, when the EntityManager is. */
  override async begin(options: Omit<TransactionOptions, 'ignoreNestedTransactions'> = {}): Promise<void> {
    const binding = (this.getContext(false) as QuadEntityManager).orgBinding;
    await super.begin(binding && !options.ctx ? { ...options, ctx: asContext(binding) } : options);
  }

  override async commit(): Promise<void> {
    try {
      await super.commit();
    } finally {
      this.restoreBinding();
    }
  }

  override async rollback(): Promise<void> {
    try {
      await super.rollback();
    } finally {
      this.restoreBinding();
    }
  }

  override resetTransactionContext(): void {
    super.resetTransactionContext();
    this.restoreBinding();
  }

  /** After an explicit transaction ends, statements run bound again. */
  private restoreBinding() {
    const em = this.getContext(false) as QuadEntityManager;
    if (em.orgBinding && !em.getTransactionContext()) em.setTransactionContext(asContext(em.orgBinding));
  }

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
    const config = em.config;
    if (em.schema !== undefined || config.get('resultCache').global || config.get('disableIdentityMap')) return;
    for (const key in options) if ((options as Record<string, unknown>)[key] !== undefined && !SHORT_PATH_OPTIONS.has(key)) return;
    const meta = em.getMetadata().find<Entity>(Utils.className(entityName));
    if (!meta) return;
    const traits = entityTraits(meta);
    const joinsForFilters = config.get('autoJoinRefsForFilters')
      && (traits.filteredToOne || (meta.relations.length > 0 && !Utils.isEmpty(config.get('filters'))));
    return traits.populates || joinsForFilters ? undefined : meta;
  }
}
