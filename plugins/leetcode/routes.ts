// The LeetCode routes, under /api/leetcode/<org> (404 while the module is off: the core's gate). Officers: settings,
// the links of members, today's post, a day's solvers, Post now. Members (their Discord session): /me, to link their
// own LeetCode username. Officer changes are audited.
import { ErrorBody, OrgParams, pageWindow, type CoreServices, type OrgDb, type OrgSnapshot, type RoutesPlugin } from '@quad/core';
import { findLink, linkView, listLinks, memberDisplayName, resolveUsername, saveLink, unlinkMember } from './links.js';
import { findPost, utcDay } from './daily.js';
import { readSettings, saveSettings } from './org-settings.js';
import { ledgerFor } from './points.js';
import { listSolves } from './solves.js';
import { startPost } from './jobs.js';
import {
  checkDay, DailyOut, DayQuery, Errors, LinkBody, LinkOut, LinksOut, LinksQuery, MemberParams, MeOut, member, officer,
  PostNowBody, PostNowOut, SettingsBody, SettingsOut, SolvesOut, SolvesQuery,
} from './schemas.js';

const PREFIX = '/api/leetcode/:org';
const tags = ['leetcode'];
const Unavailable = { 503: ErrorBody };

/** The settings as answered, with whether solves earn points for this org. */
export async function settingsView(db: OrgDb, services: CoreServices, org: OrgSnapshot) {
  return { ...(await readSettings(db)), points_enabled: ledgerFor(services, org.modules) !== null };
}

/** Today's problem as the member sees it: its title and link, and whether they solved it. */
async function today(db: OrgDb, chatUserId: string) {
  const date = utcDay(new Date());
  const post = await findPost(db, date);
  const solve = await db.one`select 1 from leetcode_solves where ${db.inOrg()} and date = ${date}::date and chat_user_id = ${chatUserId}`;
  return {
    date,
    problem: post?.status === 'posted' ? { question_id: post.question_id, title: post.title, difficulty: post.difficulty, link: post.link } : null,
    solved: solve !== null,
  };
}

export const leetcodeRoutes: RoutesPlugin = async (app) => {
  const services = app.quad;
  const actorOf = (caller: { actor: string } | null) => caller?.actor ?? 'unknown';

  app.get(`${PREFIX}/settings`, {
    config: officer,
    schema: { tags, summary: 'The org\'s LeetCode settings: channel, post hour (UTC), points per solve, enabled', params: OrgParams, response: { 200: SettingsOut, ...Errors } },
  }, async (request) => settingsView(request.db, services, request.org!));

  app.put(`${PREFIX}/settings`, {
    config: officer,
    schema: { tags, summary: 'Change the settings (fields left out are kept)', params: OrgParams, body: SettingsBody, response: { 200: SettingsOut, ...Errors } },
  }, async (request) => {
    await request.db.transaction(async (tx) => {
      await saveSettings(tx, request.body);
      await request.audit(tx.em, 'leetcode.settings_changed', { ...request.body });
    });
    return settingsView(request.db, services, request.org!);
  });

  app.get(`${PREFIX}/links`, {
    config: officer,
    schema: { tags, summary: 'Members\' linked LeetCode usernames, by username, a page at a time', params: OrgParams, querystring: LinksQuery, response: { 200: LinksOut, ...Errors } },
  }, async (request) => {
    const { page, per_page } = request.query;
    return { ...(await listLinks(request.db, pageWindow({ page, per_page }))), page, per_page };
  });

  app.put(`${PREFIX}/links/:chat_user_id`, {
    config: officer,
    schema: {
      tags, summary: 'Link (201) or re-link (200) a member\'s LeetCode username; 404 when they are not on the server, 422 when LeetCode has no such user, 409 when another member linked it',
      params: MemberParams, body: LinkBody, response: { 200: LinkOut, 201: LinkOut, ...Errors, 409: ErrorBody, 422: ErrorBody, ...Unavailable },
    },
  }, async (request, reply) => {
    const { chat_user_id: chatUserId } = request.params;
    const displayName = await memberDisplayName(services, request.org!, chatUserId);
    const username = await resolveUsername(services, request.body.username);
    const { link, created } = await request.db.transaction(async (tx) => {
      const saved = await saveLink(tx, { chatUserId, username, displayName, linkedBy: actorOf(request.caller) });
      await request.audit(tx.em, 'leetcode.linked', { chat_user_id: chatUserId, username: saved.link.username });
      return saved;
    });
    return reply.code(created ? 201 : 200).send(link);
  });

  app.delete(`${PREFIX}/links/:chat_user_id`, {
    config: officer,
    schema: { tags, summary: 'Remove a member\'s link (their recorded solves stay); 404 when they have none', params: MemberParams, response: { 200: LinkOut, ...Errors } },
  }, async (request) => request.db.transaction(async (tx) => {
    const removed = await unlinkMember(tx, request.params.chat_user_id);
    await request.audit(tx.em, 'leetcode.unlinked', { chat_user_id: removed.chat_user_id, username: removed.username });
    return removed;
  }));

  app.get(`${PREFIX}/daily`, {
    config: officer,
    schema: { tags, summary: 'The problem posted on a day (default today, UTC) with its status and solve count; post null when none', params: OrgParams, querystring: DayQuery, response: { 200: DailyOut, ...Errors } },
  }, async (request) => {
    const date = request.query.date ? checkDay(request.query.date) : utcDay(new Date());
    return { date, post: await findPost(request.db, date) };
  });

  app.get(`${PREFIX}/solves`, {
    config: officer,
    schema: { tags, summary: 'Who solved a day\'s problem (default today, UTC), in solve order, a page at a time', params: OrgParams, querystring: SolvesQuery, response: { 200: SolvesOut, ...Errors } },
  }, async (request) => {
    const { page, per_page } = request.query;
    const date = request.query.date ? checkDay(request.query.date) : utcDay(new Date());
    return { date, ...(await listSolves(request.db, date, pageWindow({ page, per_page }))), page, per_page };
  });

  app.post(`${PREFIX}/post-now`, {
    config: officer,
    schema: {
      tags, summary: 'Post today\'s problem now (202; follow it with GET /daily); 409 without a channel, when today\'s is posted (unless force) or while a Post now is queued',
      params: OrgParams, body: PostNowBody, response: { 202: PostNowOut, ...Errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const force = request.body?.force ?? false;
    const started = await request.db.transaction(async (tx) => {
      const run = await startPost(tx, services, { force });
      await request.audit(tx.em, 'leetcode.post_started', { force });
      return run;
    });
    return reply.code(202).send(started);
  });

  // The member's own link (Discord session cookie).
  const me = (request: { caller: unknown }) => request.caller as { chatUserId: string; username: string | null; actor: string };

  app.get(`${PREFIX}/me`, {
    config: member,
    schema: { tags, summary: 'The member\'s linked LeetCode username, today\'s problem and whether they solved it', params: OrgParams, response: { 200: MeOut, ...Errors } },
  }, async (request) => {
    const { chatUserId } = me(request);
    const link = await findLink(request.db, chatUserId);
    return { chat_user_id: chatUserId, link: link && linkView(link), today: await today(request.db, chatUserId) };
  });

  app.put(`${PREFIX}/me`, {
    config: member,
    schema: {
      tags, summary: 'Link the member\'s own LeetCode username (201 new, 200 changed); 422 when LeetCode has no such user, 409 when another member linked it',
      params: OrgParams, body: LinkBody, response: { 200: LinkOut, 201: LinkOut, ...Errors, 409: ErrorBody, 422: ErrorBody, ...Unavailable },
    },
  }, async (request, reply) => {
    const caller = me(request);
    const username = await resolveUsername(services, request.body.username);
    const { link, created } = await saveLink(request.db, {
      chatUserId: caller.chatUserId, username, displayName: caller.username, linkedBy: caller.actor,
    });
    return reply.code(created ? 201 : 200).send(link);
  });

  app.delete(`${PREFIX}/me`, {
    config: member,
    schema: { tags, summary: 'Remove the member\'s own link; 404 when there is none', params: OrgParams, response: { 200: LinkOut, ...Errors } },
  }, async (request) => unlinkMember(request.db, me(request).chatUserId));
};
