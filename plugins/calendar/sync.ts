// One Discord sync of an org (job calendar.sync_discord): read the server's scheduled events through the bot and
// make the org's `discord` events match them, keyed by the Discord event id. Canceled events and events gone from
// Discord before they ended are deleted; events that ended stay as history (Discord drops finished events from its
// list). A run that cannot read Discord records its error, raises the problem calendar.sync_failed and fails; a
// good run clears it. Discord events have no zone: they are stored in UTC (times are exact instants). Statements go
// through the org-bound handle (README "Org isolation").
import { DiscordRequestError, DiscordUnavailable, type CoreServices, type OrgDb } from '@quad/core';
import { MAX_LENGTH_MS } from './store.js';

type DiscordScheduledEvent = Awaited<ReturnType<CoreServices['discord']['scheduledEvents']>>[number];

export const PROBLEM_KEY = 'calendar.sync_failed';
const CANCELED = 4;
const DEFAULT_LENGTH_MS = 3_600_000;

export interface SyncOutcome { listed: number; added: number; changed: number; removed: number; error: string | null }
interface SyncContext { db: OrgDb; services: CoreServices }

export class SyncFailed extends Error {}

/** The row values of a Discord event, cut to the calendar's bounds. */
function rowOf(orgId: number, e: DiscordScheduledEvent) {
  const start = Date.parse(e.scheduled_start_time);
  const given = e.scheduled_end_time ? Date.parse(e.scheduled_end_time) : Number.NaN;
  const end = Number.isFinite(given) && given > start ? Math.min(given, start + MAX_LENGTH_MS) : start + DEFAULT_LENGTH_MS;
  return {
    discord_event_id: e.id, uid: `discord-${orgId}-${e.id}@quad`, title: (e.name.trim() || 'Discord event').slice(0, 200),
    description: (e.description ?? '').slice(0, 5000), location: (e.location ?? '').slice(0, 500),
    start_at: new Date(start).toISOString(), end_at: new Date(end).toISOString(),
  };
}

async function readDiscord(ctx: SyncContext): Promise<DiscordScheduledEvent[]> {
  const org = await ctx.db.one<{ discord_guild_id: string | null }>`select discord_guild_id from organizations where id = ${ctx.db.org}`;
  if (!org?.discord_guild_id) throw new SyncFailed('the org has no Discord server bound');
  try {
    return await ctx.services.discord.scheduledEvents(org.discord_guild_id);
  } catch (err) {
    // The adapter's errors carry no secrets; anything else is a fault of ours and fails the job as it is.
    if (err instanceof DiscordRequestError && (err.status === 403 || err.status === 404)) {
      throw new SyncFailed(`Discord refused to list the server's scheduled events (${err.message}): the bot must be in the server and able to see its events`);
    }
    if (err instanceof DiscordRequestError || err instanceof DiscordUnavailable) throw new SyncFailed(`Discord did not list the server's scheduled events: ${err.message}`);
    throw err;
  }
}

/** Upsert the listed events and delete the ones gone; answers the counts. One transaction. */
async function apply(ctx: SyncContext, listed: DiscordScheduledEvent[], now: Date): Promise<Omit<SyncOutcome, 'error'>> {
  const live = listed.filter((e) => e.status !== CANCELED && Number.isFinite(Date.parse(e.scheduled_start_time)));
  const rows = live.map((e) => rowOf(ctx.db.org, e));
  return ctx.db.transaction(async (tx) => {
    const upserted = rows.length === 0 ? [] : await tx.sql<{ inserted: boolean }>`
      insert into calendar_events (organization_id, uid, source, discord_event_id, title, description, location, start_at, end_at, time_zone,
        series_end_at, public, created_by)
      select ${tx.org}::integer, x.uid, 'discord', x.discord_event_id, x.title, x.description, x.location, x.start_at, x.end_at, 'UTC', x.end_at, true, 'discord'
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(uid text, discord_event_id text, title text, description text, location text, start_at timestamptz, end_at timestamptz)
      on conflict (organization_id, discord_event_id) where discord_event_id is not null do update set
        title = excluded.title, description = excluded.description, location = excluded.location, start_at = excluded.start_at,
        end_at = excluded.end_at, series_end_at = excluded.series_end_at, sequence = calendar_events.sequence + 1, updated_at = now()
      where (calendar_events.title, calendar_events.description, calendar_events.location, calendar_events.start_at, calendar_events.end_at)
        is distinct from (excluded.title, excluded.description, excluded.location, excluded.start_at, excluded.end_at)
      returning (xmax = 0) as inserted`;
    const removed = await tx.run`
      delete from calendar_events where ${tx.inOrg()} and source = 'discord' and end_at > ${now.toISOString()}::timestamptz
        and not (discord_event_id = any(${rows.map((r) => r.discord_event_id)}::text[]))`;
    const added = upserted.filter((r) => r.inserted).length;
    return { listed: live.length, added, changed: upserted.length - added, removed };
  });
}

/** Run a sync now and record it. Throws SyncFailed (after recording it) when Discord could not be read. */
export async function runSync(ctx: SyncContext, now = new Date()): Promise<SyncOutcome> {
  const { db, services } = ctx;
  let outcome: SyncOutcome;
  try {
    outcome = { ...(await apply(ctx, await readDiscord(ctx), now)), error: null };
  } catch (err) {
    if (!(err instanceof SyncFailed)) throw err;
    outcome = { listed: 0, added: 0, changed: 0, removed: 0, error: err.message };
  }
  await db.transaction(async (tx) => {
    await tx.run`
      insert into calendar_settings (organization_id, last_sync_at, last_sync_error, last_sync_changes)
      values (${tx.org}, ${now.toISOString()}::timestamptz, ${outcome.error}, ${outcome.error ? null : outcome.added + outcome.changed + outcome.removed})
      on conflict (organization_id) do update set last_sync_at = excluded.last_sync_at, last_sync_error = excluded.last_sync_error,
        last_sync_changes = excluded.last_sync_changes`;
    if (outcome.error) {
      await services.raiseProblem(tx.em, { orgId: tx.org, key: PROBLEM_KEY, title: 'Discord events could not be synced to the calendar', message: outcome.error });
    } else {
      await services.clearProblem(tx.em, tx.org, PROBLEM_KEY);
    }
  });
  if (outcome.error) throw new SyncFailed(`calendar.sync_discord: ${outcome.error}`);
  return outcome;
}
