// Posting the daily problem to an org's channel. The unique (org, date) row of leetcode_posts is the claim: a run
// posts only when it inserted the row or took over a failed one (or its own, when it is a retry of the run that
// claimed it; or a claim left by a crashed run more than 10 minutes ago; or, with force, a posted one), so a retried
// or concurrent run posts once. The message carries a nonce Discord enforces, the same for every attempt of a claim:
// a retry whose earlier attempt posted but died before recording it gets that message back instead of a second one.
// A failed post marks the row failed and raises the problem leetcode.post_failed; a good post clears it and emits
// leetcode.posted. Statements go through the org-bound handle of the org posted to (README "Org isolation").
import { createHash } from 'node:crypto';
import { DiscordRequestError, DiscordUnavailable, type CoreServices, type OrgDb } from '@quad/core';
import type { DailyProblem } from './leetcode-api.js';
import { dailyMessage } from './messages.js';
import { readSettings } from './org-settings.js';

export const PROBLEM_KEY = 'leetcode.post_failed';
const STALE_CLAIM_MINUTES = 10;

export type PostOutcome =
  | { status: 'posted'; date: string; message_id: string }
  | { status: 'already_posted'; date: string }
  | { status: 'no_channel' }
  | { status: 'failed'; date: string; error: string };

/** The org posted to (its handle), the services and the job run's key (JobContext.runKey). */
interface Ctx { db: OrgDb; services: CoreServices; runKey: string }

/** What officers read when a post fails: Discord's own words for a refusal, never an address or a token. */
function describeFailure(err: unknown): string {
  if (err instanceof DiscordRequestError) {
    return `Discord refused the post (${err.status}${err.message ? `: ${err.message}` : ''}): check the channel id and that the bot may post there`;
  }
  if (err instanceof DiscordUnavailable) return 'Discord did not answer; the next hourly run tries again';
  return 'Posting failed (details in the error log)';
}

/** Raise (LeetCode or Discord failed) the org's post problem. */
export async function raisePostProblem(db: OrgDb, services: CoreServices, date: string, message: string) {
  await services.raiseProblem(db.em, { orgId: db.org, key: PROBLEM_KEY, title: 'The LeetCode daily problem was not posted', message, data: { date } });
}

/**
 * Claim the org's row for the problem's day: the claim's nonce when this run is to post, null when not. The nonce
 * names the row and the claiming run, so every attempt of one run sends the same and another run a new one.
 */
async function claim(db: OrgDb, channelId: string, problem: DailyProblem, now: Date, force: boolean, runKey: string): Promise<string | null> {
  const row = await db.one<{ id: number }>`
    insert into leetcode_posts (organization_id, date, question_id, title, slug, difficulty, link, tags, status, channel_id, claimed_at, claim_key)
    values (${db.org}, ${problem.date}, ${problem.questionId}, ${problem.title}, ${problem.slug}, ${problem.difficulty}, ${problem.link},
            ${JSON.stringify(problem.tags)}::jsonb, 'posting', ${channelId}, ${now}, ${runKey})
    on conflict (organization_id, date) do update set question_id = excluded.question_id, title = excluded.title, slug = excluded.slug,
      difficulty = excluded.difficulty, link = excluded.link, tags = excluded.tags, status = 'posting', channel_id = excluded.channel_id,
      claimed_at = excluded.claimed_at, claim_key = excluded.claim_key, error = null
    where leetcode_posts.status = 'failed'
       or (leetcode_posts.status = 'posting' and leetcode_posts.claim_key = excluded.claim_key)
       or (leetcode_posts.status = 'posting' and leetcode_posts.claimed_at < excluded.claimed_at - make_interval(mins => ${STALE_CLAIM_MINUTES}))
       or (${force}::boolean and leetcode_posts.status = 'posted')
    returning id`;
  return row ? postNonce(row.id, runKey) : null;
}

/** Discord keeps a nonce to 25 characters. */
const postNonce = (postId: number, runKey: string) => createHash('sha256').update(`leetcode:${postId}:${runKey}`).digest('base64url').slice(0, 25);

/** Post the problem to the org's channel unless this day's post is done (or being done). Failures are outcomes. */
export async function postDaily({ db, services, runKey }: Ctx, problem: DailyProblem, opts: { now: Date; force?: boolean }): Promise<PostOutcome> {
  const settings = await readSettings(db);
  if (!settings.channel_id) return { status: 'no_channel' };
  // The claim commits on its own (a statement outside a transaction), so concurrent runs see it at once.
  const nonce = await claim(db, settings.channel_id, problem, opts.now, opts.force ?? false, runKey);
  if (!nonce) return { status: 'already_posted', date: problem.date };
  let messageId: string;
  try {
    messageId = (await services.discord.postMessage(settings.channel_id, { ...dailyMessage(problem), nonce, enforce_nonce: true })).id;
  } catch (err) {
    const error = describeFailure(err);
    await db.transaction(async (tx) => {
      await tx.run`update leetcode_posts set status = 'failed', error = ${error} where ${tx.inOrg()} and date = ${problem.date}::date`;
      await raisePostProblem(tx, services, problem.date, error);
    });
    if (!(err instanceof DiscordRequestError || err instanceof DiscordUnavailable)) throw err;
    return { status: 'failed', date: problem.date, error };
  }
  await db.transaction(async (tx) => {
    await tx.run`
      update leetcode_posts set status = 'posted', message_id = ${messageId}, posted_at = ${opts.now}, error = null
      where ${tx.inOrg()} and date = ${problem.date}::date`;
    await services.clearProblem(tx.em, tx.org, PROBLEM_KEY);
    await services.emit(tx.em, {
      orgId: tx.org, kind: 'leetcode.posted', title: `LeetCode daily posted: ${problem.questionId}. ${problem.title}`,
      message: `${problem.difficulty} · ${problem.link}`,
      data: { date: problem.date, question_id: problem.questionId, title: problem.title, slug: problem.slug, difficulty: problem.difficulty, link: problem.link, channel_id: settings.channel_id, message_id: messageId },
    });
  });
  return { status: 'posted', date: problem.date, message_id: messageId };
}

export interface PostRow {
  date: string; question_id: string; title: string; slug: string; difficulty: string; link: string; tags: string[];
  status: 'posting' | 'posted' | 'failed'; channel_id: string; message_id: string | null; error: string | null;
  posted_at: Date | null; solves: number;
}

export const postView = (r: PostRow) => ({
  date: r.date, question_id: r.question_id, title: r.title, slug: r.slug, difficulty: r.difficulty, link: r.link, tags: r.tags,
  status: r.status, channel_id: r.channel_id, message_id: r.message_id, error: r.error,
  posted_at: r.posted_at ? new Date(r.posted_at).toISOString() : null, solves: r.solves,
});
export type PostView = ReturnType<typeof postView>;

/** The org's post of a day (YYYY-MM-DD), or null. */
export async function findPost(db: OrgDb, date: string): Promise<PostView | null> {
  const row = await db.one<PostRow>`
    select to_char(date, 'YYYY-MM-DD') as date, question_id, title, slug, difficulty, link, tags, status, channel_id, message_id, error, posted_at, solves
    from leetcode_posts where ${db.inOrg()} and date = ${date}::date`;
  return row ? postView(row) : null;
}

/** The UTC day of a time, YYYY-MM-DD. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);
