// The LeetCode jobs. leetcode.daily (hourly) posts the day's problem to every org that is due: the module on, the
// settings enabled with a channel, the UTC hour at or past post_hour_utc, nothing posted today; it reads LeetCode
// once for all of them. leetcode.post posts to one org now (the officer's Post now, one run at a time per org).
// leetcode.check_solves (every 30 minutes) records who solved (solves.ts). Every payload takes `now`, so tests set
// the time; each job is idempotent (the unique rows of leetcode_posts and leetcode_solves decide). The crons find
// their orgs across orgs (services.acrossOrgs) and do each org's work on its own org-bound handle.
import { defineJob, conflict, Type, type AcrossOrgsDb, type CoreServices, type OrgDb } from '@quad/core';
import { LeetCodeClient, LeetCodeUnavailable, type DailyProblem } from './leetcode-api.js';
import { findPost, postDaily, raisePostProblem, utcDay } from './daily.js';
import { readSettings } from './org-settings.js';
import { settingsOf } from './settings.js';
import { checkSolves } from './solves.js';

export const DAILY_JOB = 'leetcode.daily';
export const POST_JOB = 'leetcode.post';
export const CHECK_JOB = 'leetcode.check_solves';
/** Due orgs read per statement (keyset by org id, so a run covers every due org however many there are). */
const DUE_BATCH = 200;

const Now = Type.Optional(Type.String({ format: 'date-time', description: 'the run\'s time (tests); default now' }));
const nowOf = (payload: { now?: string }) => (payload.now ? new Date(payload.now) : new Date());

/** Orgs due a post at `now`, after org id `after`, each with its handle (read across orgs; posted to one by one). */
async function dueOrgs(all: AcrossOrgsDb, now: Date, after: number): Promise<OrgDb[]> {
  const rows = await all.sql<{ organization_id: number }>`
    select s.organization_id from leetcode_settings s join organizations o on o.id = s.organization_id
     where s.enabled and s.channel_id is not null and s.post_hour_utc <= ${now.getUTCHours()} and s.organization_id > ${after}
       and coalesce((o.modules ->> 'leetcode')::boolean, false)
       and not exists (select 1 from leetcode_posts p where p.organization_id = s.organization_id and p.date = ${utcDay(now)}::date and p.status = 'posted')
     order by s.organization_id limit ${DUE_BATCH}`;
  return rows.map((r) => all.forOrg(r.organization_id));
}

export const dailyJob = defineJob({
  name: DAILY_JOB,
  description: 'Posts LeetCode\'s daily problem to the channel of every org that is due (once per UTC day, at or after its post hour)',
  cron: '0 * * * *',
  payload: Type.Object({ now: Now }, { additionalProperties: false }),
  // A failed org is retried by the next hourly run; a retry of the whole run would only repeat the others' checks.
  maxAttempts: 1,
  async handler({ services, payload, log, runKey }) {
    const now = nowOf(payload);
    let problem: DailyProblem | null = null;
    let unavailable: string | null = null;
    const tally: Record<string, number> = {};
    for (let after = 0; ;) {
      const orgs = await services.acrossOrgs('leetcode.daily', (all) => dueOrgs(all, now, after));
      if (!orgs.length) break;
      after = orgs.at(-1)!.org;
      if (!problem && !unavailable) {
        try {
          problem = await new LeetCodeClient(settingsOf(services)).dailyProblem();
        } catch (err) {
          if (!(err instanceof LeetCodeUnavailable)) throw err;
          unavailable = err.message;
          log.warn({ err: err.message }, 'leetcode.daily: LeetCode did not answer');
        }
      }
      if (!problem) {
        // Every due org learns why nothing was posted; the next hourly run tries again.
        for (const db of orgs) await raisePostProblem(db, services, utcDay(now), unavailable!);
        tally.leetcode_unavailable = (tally.leetcode_unavailable ?? 0) + orgs.length;
        continue;
      }
      for (const db of orgs) {
        try {
          const outcome = await postDaily({ db, services, runKey }, problem, { now });
          tally[outcome.status] = (tally[outcome.status] ?? 0) + 1;
        } catch (err) {
          // A fault of ours for one org (logged, its row marked failed) must not keep the others from their post.
          tally.error = (tally.error ?? 0) + 1;
          log.error({ err, org: db.org }, 'leetcode.daily: posting failed');
        }
      }
    }
    log.info({ ...tally, date: problem?.date ?? null }, 'leetcode.daily done');
  },
});

export const postJob = defineJob({
  name: POST_JOB,
  description: 'Posts LeetCode\'s daily problem to the org\'s channel now (Post now); with force, again even when posted today',
  payload: Type.Object({ force: Type.Boolean({ default: false }), now: Now }, { additionalProperties: false }),
  once: 'org',
  maxAttempts: 2,
  async handler({ db, services, payload, log, runKey }) {
    const now = nowOf(payload);
    let problem: DailyProblem;
    try {
      problem = await new LeetCodeClient(settingsOf(services)).dailyProblem();
    } catch (err) {
      if (!(err instanceof LeetCodeUnavailable)) throw err;
      await raisePostProblem(db, services, utcDay(now), err.message);
      log.warn({ err: err.message }, 'leetcode.post: LeetCode did not answer');
      return;
    }
    const outcome = await postDaily({ db, services, runKey }, problem, { now, force: payload.force });
    log.info(outcome, 'leetcode.post done');
  },
});

export const checkSolvesJob = defineJob({
  name: CHECK_JOB,
  description: 'Records which linked members solved their org\'s posted daily problem (today or yesterday) and awards points when the points module is on',
  cron: '*/30 * * * *',
  payload: Type.Object({ now: Now }, { additionalProperties: false }),
  maxAttempts: 1,
  async handler({ services, payload, log }) {
    const outcome = await checkSolves(services, nowOf(payload), log);
    log.info(outcome, 'leetcode.check_solves done');
  },
});

/**
 * Post now (route and tool): 409 no_channel without a channel, 409 already_posted when today's is posted (unless
 * force), 409 while a Post now of the org is queued or running (the core's once). Answers the run id.
 */
export async function startPost(db: OrgDb, services: CoreServices, opts: { force: boolean; now?: string }) {
  const settings = await readSettings(db);
  if (!settings.channel_id) throw conflict('Set the channel first (PUT /settings channel_id)', 'no_channel');
  const today = utcDay(opts.now ? new Date(opts.now) : new Date());
  const post = await findPost(db, today);
  if (post?.status === 'posted' && !opts.force) {
    throw conflict(`Today's problem (${today}) is already posted; send force: true to post it again`, 'already_posted');
  }
  const started = await services.startJob(db.em, POST_JOB, { force: opts.force, ...(opts.now && { now: opts.now }) }, { orgId: db.org });
  return { run_id: started.runId };
}
