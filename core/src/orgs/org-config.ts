// The org config store: one JSON object per org (organizations.config), keyed by `<area>.<name>`
// (`dashboard.resolved`, `branding`, module settings). Each write changes one key atomically.
import type { EntityManager } from '@mikro-orm/postgresql';

export async function getOrgConfig<T = unknown>(em: EntityManager, orgId: number, key: string): Promise<T | undefined> {
  const [row] = await em.execute('select config -> ? as value from organizations where id = ?', [key, orgId]);
  return (row?.value ?? undefined) as T | undefined;
}

/** Set one key (null or undefined removes it), in the caller's transaction. */
export async function setOrgConfig(em: EntityManager, orgId: number, key: string, value: unknown): Promise<void> {
  if (value === undefined || value === null) {
    await em.execute('update organizations set config = config - ? where id = ?', [key, orgId]);
  } else {
    await em.execute('update organizations set config = jsonb_set(config, array[?], ?::jsonb) where id = ?', [key, JSON.stringify(value), orgId]);
  }
}
