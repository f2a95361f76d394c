// The org's calendar settings (discord_sync) and the last Discord sync's outcome. Turning sync off deletes the
// events it copied: nothing would keep them up to date any more.
import type { EntityManager } from '@quad/core';

export interface SettingsView {
  discord_sync: boolean;
  discord_bound: boolean;
  last_sync: { at: string; error: string | null; changes: number | null } | null;
}

export async function readSettings(em: EntityManager, orgId: number): Promise<SettingsView> {
  const [row] = await em.execute<{ discord_sync: boolean | null; last_sync_at: Date | null; last_sync_error: string | null; last_sync_changes: number | null; guild: string | null }[]>(
    `select s.discord_sync, s.last_sync_at, s.last_sync_error, s.last_sync_changes, o.discord_guild_id as guild
     from organizations o left join calendar_settings s on s.organization_id = o.id where o.id = ?`, [orgId]);
  return {
    discord_sync: row?.discord_sync ?? false,
    discord_bound: Boolean(row?.guild),
    last_sync: row?.last_sync_at ? { at: new Date(row.last_sync_at).toISOString(), error: row.last_sync_error, changes: row.last_sync_changes } : null,
  };
}

/** Set discord_sync; answers how many copied events were deleted (turning it off). */
export async function writeSettings(em: EntityManager, orgId: number, discordSync: boolean): Promise<{ removed: number }> {
  return em.transactional(async (tx) => {
    await tx.execute(
      `insert into calendar_settings (organization_id, discord_sync) values (?, ?)
       on conflict (organization_id) do update set discord_sync = excluded.discord_sync`, [orgId, discordSync]);
    if (discordSync) return { removed: 0 };
    const removed = await tx.execute("delete from calendar_events where organization_id = ? and source = 'discord' returning id", [orgId]);
    return { removed: removed.length };
  });
}
