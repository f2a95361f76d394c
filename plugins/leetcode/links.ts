// Members' LeetCode usernames (table leetcode_links): link (LeetCode must know the user: 422; another member of the
// org holding the username: 409), unlink, one member's link, and the org's links a page at a time.
import { conflict, displayName, HttpError, notFound, sql, type CoreServices, type OrgDb, type OrgSnapshot } from '@quad/core';
import { LeetCodeClient } from './leetcode-api.js';
import { settingsOf } from './settings.js';

export interface LinkRow {
  chat_user_id: string; username: string; display_name: string | null; linked_by: string; created_at: Date; updated_at: Date;
}

const iso = (d: Date) => new Date(d).toISOString();
export const linkView = (r: LinkRow) => ({
  chat_user_id: r.chat_user_id, username: r.username, display_name: r.display_name, linked_by: r.linked_by,
  linked_at: iso(r.created_at), updated_at: iso(r.updated_at),
});
export type LinkView = ReturnType<typeof linkView>;

const COLUMNS = sql`chat_user_id, username, display_name, linked_by, created_at, updated_at`;

export async function findLink(db: OrgDb, chatUserId: string): Promise<LinkRow | null> {
  return db.one<LinkRow>`select ${COLUMNS} from leetcode_links where ${db.inOrg()} and chat_user_id = ${chatUserId}`;
}

/** The org's links by username, a page at a time, with how many there are. */
export async function listLinks(db: OrgDb, page: { limit: number; offset: number }) {
  const rows = await db.sql<LinkRow>`
    select ${COLUMNS} from leetcode_links where ${db.inOrg()} order by lower(username), id limit ${page.limit} offset ${page.offset}`;
  const count = await db.one<{ n: number }>`select count(*)::int as n from leetcode_links where ${db.inOrg()}`;
  return { links: rows.map(linkView), total: count!.n };
}

/** The member's display name on the org's Discord server; 404 not_a_member when they are not on it. */
export async function memberDisplayName(services: CoreServices, org: Pick<OrgSnapshot, 'discordGuildId'>, chatUserId: string): Promise<string | null> {
  if (!org.discordGuildId) return null;
  const found = await services.discord.member(org.discordGuildId, chatUserId);
  if (!found) throw notFound('No member of the org\'s Discord server has that id', 'not_a_member');
  return displayName(found);
}

export interface LinkRequest { chatUserId: string; username: string; displayName: string | null; linkedBy: string }

/**
 * The username as LeetCode spells it: 422 leetcode_user_not_found when LeetCode has no such user, 503 when it does
 * not answer. Asked before the write's transaction opens, so no transaction waits on LeetCode.
 */
export async function resolveUsername(services: CoreServices, username: string): Promise<string> {
  const found = await new LeetCodeClient(settingsOf(services)).findUser(username);
  if (found === null) throw new HttpError(422, `LeetCode has no user "${username}"`, 'leetcode_user_not_found', { field: 'body.username' });
  return found;
}

/** Link (or re-link) a member to a username resolveUsername answered. 409 username_taken when another member of the org has it. */
export async function saveLink(db: OrgDb, req: LinkRequest): Promise<{ link: LinkView; created: boolean }> {
  const taken = () => conflict(`Another member of the org linked the LeetCode user "${req.username}"`, 'username_taken', { field: 'body.username' });
  const holder = await db.one`
    select 1 from leetcode_links where ${db.inOrg()} and lower(username) = lower(${req.username}::text) and chat_user_id <> ${req.chatUserId}`;
  if (holder) throw taken();
  try {
    const row = await db.one<LinkRow & { created: boolean }>`
      insert into leetcode_links (organization_id, chat_user_id, username, display_name, linked_by)
      values (${db.org}, ${req.chatUserId}, ${req.username}, ${req.displayName}, ${req.linkedBy})
      on conflict (organization_id, chat_user_id) do update set username = excluded.username,
        display_name = coalesce(excluded.display_name, leetcode_links.display_name), linked_by = excluded.linked_by, updated_at = now(),
        -- a new username is checked from scratch
        checked_at = case when lower(leetcode_links.username) = lower(excluded.username) then leetcode_links.checked_at end
      returning ${COLUMNS}, (xmax = 0) as created`;
    const { created, ...link } = row!;
    return { link: linkView(link), created };
  } catch (err) {
    // Two members linking one username at the same time: the unique index decides, the loser gets the 409.
    if ((err as { code?: string }).code === '23505') throw taken();
    throw err;
  }
}

/** Remove a member's link; their recorded solves stay. 404 not_linked when there is none. */
export async function unlinkMember(db: OrgDb, chatUserId: string): Promise<LinkView> {
  const row = await db.one<LinkRow>`delete from leetcode_links where ${db.inOrg()} and chat_user_id = ${chatUserId} returning ${COLUMNS}`;
  if (!row) throw notFound('That member has no LeetCode username linked', 'not_linked');
  return linkView(row);
}
