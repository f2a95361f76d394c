// An org's LeetCode settings (table leetcode_settings): the channel, the hour, the points per solve and the switch.
// An org that never saved them has the defaults; a save writes only the fields it names.
import { sql, type OrgDb } from '@quad/core';

export const ORG_DEFAULTS = { channel_id: null as string | null, post_hour_utc: 14, points_per_solve: 10, enabled: true };
export type OrgSettings = typeof ORG_DEFAULTS;
export type SettingsChange = Partial<OrgSettings>;

export async function readSettings(db: OrgDb): Promise<OrgSettings> {
  const row = await db.one<OrgSettings>`
    select channel_id, post_hour_utc, points_per_solve, enabled from leetcode_settings where ${db.inOrg()}`;
  return row ?? { ...ORG_DEFAULTS };
}

/**
 * Save the named fields (the others keep their value or default); answers the settings after the save. The row is
 * made with the defaults first, then only the named columns are updated: two saves of different fields both stick.
 */
export async function saveSettings(db: OrgDb, change: SettingsChange): Promise<OrgSettings> {
  await db.run`insert into leetcode_settings (organization_id) values (${db.org}) on conflict (organization_id) do nothing`;
  const fields = (Object.keys(ORG_DEFAULTS) as (keyof OrgSettings)[]).filter((k) => change[k] !== undefined);
  const set = sql.join([...fields.map((f) => sql`${sql.identifier(f)} = ${change[f]}`), sql`updated_at = now()`]);
  const row = await db.one<OrgSettings>`
    update leetcode_settings set ${set} where ${db.inOrg()}
    returning channel_id, post_hour_utc, points_per_solve, enabled`;
  return row!;
}
