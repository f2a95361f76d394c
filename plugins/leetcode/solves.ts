// Who solved the day's problem. leetcode.check_solves claims a batch of links (an update that moves their checked_at,
// under `for update skip locked`, so workers split the links and a link is read once per period), reads each
// member's recent accepted submissions, and records a solve of an org's posted problem of today or yesterday when an
// accepted submission of it falls on that UTC day. One solve per (org, day, member): the unique row decides, and the
// points award (points module loaded and on for the org) is written in the same transaction, with ref
// leetcode:<day>:<member>, so a retried run never awards twice. The claim reads across orgs (services.acrossOrgs) and
// commits before LeetCode is asked; each solve is written on its org's handle.
import type { AcrossOrgsDb, CoreServices, OrgDb } from '@quad/core';
import { LeetCodeClient, LeetCodeUnavailable, type AcceptedSubmission } from './leetcode-api.js';
import { ledgerFor } from './points.js';
import { settingsOf } from './settings.js';
import { utcDay } from './daily.js';
import { ORG_DEFAULTS } from './org-settings.js';

export const CHECK_BATCH = 50;
/** Batches in one run at most (the next run goes on where this one stopped: links checked longest ago first). */
export const CHECK_MAX_BATCHES = 20;
/** A link is read again once this much time has passed since its last check (the cron runs every 30 minutes). */
const RECHECK_MINUTES = 25;
/** Accepted submissions read per member: LeetCode answers the newest. */
const RECENT_LIMIT = 20;

interface ClaimedLink { id: number; organization_id: number; chat_user_id: string; username: string; modules: Record<string, boolean> }
interface DayPost { organization_id: number; date: string; slug: string; title: string; question_id: string }
/** A claimed link with its org's handle and the org's posts of the two days. */
interface LinkToCheck { link: ClaimedLink; db: OrgDb; posts: DayPost[] }

export interface CheckOutcome { checked: number; solves: number; awarded: number; failures: number }

/** Claim the next batch: links of orgs with the module on and a posted problem of today or yesterday. */
function claimLinks(all: AcrossOrgsDb, now: Date, days: string[]): Promise<ClaimedLink[]> {
  return all.sql<ClaimedLink>`
    with due as (
      select l.id from leetcode_links l join organizations o on o.id = l.organization_id
       where coalesce((o.modules ->> 'leetcode')::boolean, false)
         and (l.checked_at is null or l.checked_at < ${now}::timestamptz - make_interval(mins => ${RECHECK_MINUTES}))
         and exists (select 1 from leetcode_posts p where p.organization_id = l.organization_id and p.status = 'posted' and p.date in (${days[0]}::date, ${days[1]}::date))
       order by l.checked_at nulls first, l.id limit ${CHECK_BATCH} for update of l skip locked)
    update leetcode_links l set checked_at = ${now}::timestamptz from due, organizations o
     where l.id = due.id and o.id = l.organization_id
    returning l.id, l.organization_id, l.chat_user_id, l.username, o.modules`;
}

function postsOf(all: AcrossOrgsDb, orgIds: number[], days: string[]): Promise<DayPost[]> {
  return all.sql<DayPost>`
    select organization_id, to_char(date, 'YYYY-MM-DD') as date, slug, title, question_id from leetcode_posts
     where organization_id = any(${orgIds}::int[]) and status = 'posted' and date in (${days[0]}::date, ${days[1]}::date)`;
}

/** The next batch of links, claimed (and committed) across orgs, with their orgs' handles and posts. */
function claimBatch(services: CoreServices, now: Date, days: string[]): Promise<LinkToCheck[]> {
  return services.acrossOrgs('leetcode.check_solves', async (all) => {
    const links = await claimLinks(all, now, days);
    const orgIds = [...new Set(links.map((l) => l.organization_id))];
    const posts = orgIds.length ? await postsOf(all, orgIds, days) : [];
    const handles = new Map(orgIds.map((id) => [id, all.forOrg(id)]));
    return links.map((link) => ({ link, db: handles.get(link.organization_id)!, posts: posts.filter((p) => p.organization_id === link.organization_id) }));
  });
}

/** Record one solve (and its award) unless the member's solve of that day is recorded; true when it was new. */
async function recordSolve(db: OrgDb, services: CoreServices, link: ClaimedLink, post: DayPost, solvedAt: Date): Promise<{ recorded: boolean; points: number }> {
  return db.transaction(async (tx) => {
    const inserted = await tx.one<{ id: number }>`
      insert into leetcode_solves (organization_id, date, chat_user_id, username, slug, solved_at)
      values (${tx.org}, ${post.date}, ${link.chat_user_id}, ${link.username}, ${post.slug}, ${solvedAt})
      on conflict (organization_id, date, chat_user_id) do nothing returning id`;
    if (!inserted) return { recorded: false, points: 0 };
    await tx.run`update leetcode_posts set solves = solves + 1 where ${tx.inOrg()} and date = ${post.date}::date`;
    let points = 0;
    const ledger = ledgerFor(services, link.modules);
    if (ledger) {
      const settings = await tx.one<{ points_per_solve: number }>`select points_per_solve from leetcode_settings where ${tx.inOrg()}`;
      points = settings?.points_per_solve ?? ORG_DEFAULTS.points_per_solve;
      if (points > 0) {
        const member = await ledger.joinByChatUserId(tx.em, tx.org, link.chat_user_id);
        await ledger.addEntry(tx.em, {
          orgId: tx.org, userId: member.id, amount: points, source: 'award', awardedBy: 'system',
          reason: `LeetCode daily ${post.date}: ${post.question_id}. ${post.title}`.slice(0, 500), ref: `leetcode:${post.date}:${link.chat_user_id}`,
        });
        await tx.run`update leetcode_solves set points = ${points} where ${tx.inOrg()} and id = ${inserted.id}`;
      }
    }
    await services.emit(tx.em, {
      orgId: tx.org, kind: 'leetcode.solved', title: `${link.username} solved the LeetCode daily (${post.title})`,
      data: { date: post.date, chat_user_id: link.chat_user_id, username: link.username, slug: post.slug, points },
    });
    return { recorded: true, points };
  });
}

/** The accepted submission of the day's problem made on that UTC day, if any (the earliest). */
function solveOf(submissions: AcceptedSubmission[], post: DayPost): AcceptedSubmission | undefined {
  return submissions.filter((s) => s.slug === post.slug && utcDay(s.at) === post.date).sort((a, b) => a.at.getTime() - b.at.getTime())[0];
}

/** One run of leetcode.check_solves at `now`. A member whose submissions LeetCode does not answer is a failure; the others go on. */
export async function checkSolves(services: CoreServices, now: Date, log?: { warn(obj: object, msg: string): void }): Promise<CheckOutcome> {
  const client = new LeetCodeClient(settingsOf(services));
  const days = [utcDay(now), utcDay(new Date(now.getTime() - 86_400_000))];
  const outcome: CheckOutcome = { checked: 0, solves: 0, awarded: 0, failures: 0 };
  for (let batch = 0; batch < CHECK_MAX_BATCHES; batch++) {
    const links = await claimBatch(services, now, days);
    if (!links.length) break;
    for (const { link, db, posts } of links) {
      outcome.checked++;
      let submissions: AcceptedSubmission[];
      try {
        submissions = await client.recentAccepted(link.username, RECENT_LIMIT);
      } catch (err) {
        if (!(err instanceof LeetCodeUnavailable)) throw err;
        outcome.failures++;
        log?.warn({ org: link.organization_id, username: link.username, err: err.message }, 'leetcode.check_solves: submissions not read');
        // Read again next run.
        await db.run`update leetcode_links set checked_at = null where ${db.inOrg()} and id = ${link.id}`;
        continue;
      }
      for (const post of posts) {
        const solve = solveOf(submissions, post);
        if (!solve) continue;
        const { recorded, points } = await recordSolve(db, services, link, post, solve.at);
        if (recorded) outcome.solves++;
        if (points > 0) outcome.awarded += points;
      }
    }
    if (links.length < CHECK_BATCH) break;
  }
  return outcome;
}

/** A day's solvers in solve order, a page at a time (the day's count is the post's maintained solves). */
export async function listSolves(db: OrgDb, date: string, page: { limit: number; offset: number }) {
  const rows = await db.sql<{ chat_user_id: string; username: string; display_name: string | null; solved_at: Date; points: number }>`
    select s.chat_user_id, s.username, l.display_name, s.solved_at, s.points from leetcode_solves s
      left join leetcode_links l on l.organization_id = s.organization_id and l.chat_user_id = s.chat_user_id
     where ${db.inOrg('s')} and s.date = ${date}::date order by s.solved_at, s.id limit ${page.limit} offset ${page.offset}`;
  const post = await db.one<{ solves: number }>`select solves from leetcode_posts where ${db.inOrg()} and date = ${date}::date`;
  return {
    solves: rows.map((r) => ({ ...r, solved_at: new Date(r.solved_at).toISOString() })),
    total: post?.solves ?? 0,
  };
}
