// The org's calendar settings (discord_sync) and the last Discord sync's outcome. Turning sync off deletes the
// events it copied: nothing would keep them up to date any more. Statements go through the org-bound handle
// (README "Org isolation").
import type { OrgDb } from '@quad/core';

export interface SettingsView {
  discord_sync: boolean;
  discord_bound: boolean;
  last_sync: { at: string; error: string | null; changes: number | null } | null;
}

export async function readSettings(db: OrgDb): Promise<SettingsView> {
  const row = await db.one<{ discord_sync: boolean | null; last_sync_at: Date | null; last_sync_error: string | null; last_sync_changes: number | null; guild: string | null }>`
    select s.discord_sync, s.last_sync_at, s.last_sync_error, s.last_sync_changes, o.discord_guild_id as guild
    from organizations o left join calendar_settings s on ${db.inOrg('s')} where o.id = ${db.org}`;
  return {
    discord_sync: row?.discord_sync ?? false,
    discord_bound: Boolean(row?.guild),
    last_sync: row?.last_sync_at ? { at: new Date(row.last_sync_at).toISOString(), error: row.last_sync_error, changes: row.last_sync_changes } : null,
  };
}

/** Set discord_sync; answers how many copied events were deleted (turning it off). */
export async function writeSettings(db: OrgDb, discordSync: boolean): Promise<{ removed: number }> {
  return db.transaction(async (tx) => {
    await tx.run`
      insert into calendar_settings (organization_id, discord_sync) values (${tx.org}, ${discordSync})
      on conflict (organization_id) do update set discord_sync = excluded.discord_sync`;
    if (discordSync) return { removed: 0 };
    const removed = await tx.run`delete from calendar_events where ${tx.inOrg()} and source = 'discord'`;
    return { removed };
  });
}
