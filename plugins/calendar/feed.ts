// The org's iCalendar subscription URL: a random token shown once, stored only as its SHA-256 hash (one row per
// org, so creating again rotates it and the old URL stops working; revoking deletes it), and the feed it serves:
// the org's public events, as ics.ts writes them. A token is looked up by its hash through a unique index, so the
// answer's time does not depend on how much of a token matches, and a miss never says which org was meant.
// The officer routes' statements go through the org-bound handle (README "Org isolation"); the feed itself is asked
// for by token, with no org known beforehand, so feedOf finds the token's org across orgs (services.acrossOrgs, one
// indexed lookup) and reads its events on that org's handle.
import { createHash, randomBytes } from 'node:crypto';
import { notFound, type CoreServices, type OrgDb } from '@quad/core';
import { writeFeed, type FeedEvent } from './ics.js';
import type { EventRow } from './store.js';

export const MODULE = 'calendar';
/** 32 random bytes, base64url: 43 characters. */
export const TOKEN_PATTERN = '^[A-Za-z0-9_-]{43}$';
/** Events that ended more than this long ago drop out of the feed, so it follows the calendar, not its age. */
const FEED_PAST_DAYS = 366;
/** The most events one feed holds (those starting last are left out). */
export const FEED_MAX_EVENTS = 2000;

const hashOf = (token: string) => createHash('sha256').update(token).digest();
export const feedPath = (token: string) => `/api/calendar/feed/${token}.ics`;

export async function feedStatus(db: OrgDb): Promise<{ exists: boolean; created_at: string | null }> {
  const row = await db.one<{ created_at: Date }>`select created_at from calendar_feeds where ${db.inOrg()}`;
  return { exists: Boolean(row), created_at: row ? new Date(row.created_at).toISOString() : null };
}

/** Make the org's feed token, replacing any earlier one. Answers the token: the only time it is seen. */
export async function rotateFeed(db: OrgDb): Promise<{ token: string; rotated: boolean; created_at: string }> {
  const token = randomBytes(32).toString('base64url');
  const row = await db.one<{ created_at: Date; rotated: boolean }>`
    insert into calendar_feeds (organization_id, token_hash) values (${db.org}, ${hashOf(token)})
    on conflict (organization_id) do update set token_hash = excluded.token_hash, created_at = now()
    returning created_at, (xmax <> 0) as rotated`;
  return { token, rotated: row!.rotated, created_at: new Date(row!.created_at).toISOString() };
}

export async function revokeFeed(db: OrgDb): Promise<void> {
  const rows = await db.sql`delete from calendar_feeds where ${db.inOrg()} returning organization_id`;
  if (!rows.length) throw notFound('The org has no feed URL', 'feed_not_found');
}

interface FeedOrg { id: number; prefix: string; name: string | null; modules: Record<string, boolean> }

/** The org of a token and its handle, or null for a token no org has. */
function orgOfToken(services: CoreServices, token: string): Promise<{ org: FeedOrg; db: OrgDb } | null> {
  return services.acrossOrgs('calendar.feed_token', async (all) => {
    const org = await all.one<FeedOrg>`
      select o.id, o.prefix, o.name, o.modules from calendar_feeds f join organizations o on o.id = f.organization_id
      where f.token_hash = ${hashOf(token)}`;
    return org && { org, db: all.forOrg(org.id) };
  });
}

/**
 * The feed of a token: the org's public events as iCalendar text. 404 (the same answer) for an unknown or
 * revoked token and for an org with the calendar off.
 */
export async function feedOf(services: CoreServices, token: string, now = Date.now()): Promise<{ text: string; org: string }> {
  const found = await orgOfToken(services, token);
  if (!found || !services.registry.isEnabled(found.org.modules ?? {}, MODULE)) throw notFound('No such calendar feed', 'feed_not_found');
  const { org, db } = found;
  const rows = await db.sql<EventRow>`
    select uid, title, description, location, start_at, end_at, time_zone, all_day, recurrence, sequence, created_at, updated_at
    from calendar_events where ${db.inOrg()} and public and series_end_at > ${new Date(now - FEED_PAST_DAYS * 86_400_000).toISOString()}::timestamptz
    order by start_at, id limit ${FEED_MAX_EVENTS}`;
  const events: FeedEvent[] = rows.map((r) => ({
    uid: r.uid, title: r.title, description: r.description, location: r.location, start: new Date(r.start_at).getTime(),
    end: new Date(r.end_at).getTime(), zone: r.time_zone, allDay: r.all_day, recurrence: r.recurrence, sequence: r.sequence,
    created: new Date(r.created_at).getTime(), updated: new Date(r.updated_at).getTime(),
  }));
  return { text: writeFeed({ name: org.name || org.prefix, events, now }), org: org.prefix };
}
