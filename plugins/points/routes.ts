// Routes of the points module, under /api/points/<org>. Officers award points, upload event check-ins, manage
// events and read members; everyone may read the public leaderboard and member list (member details hidden).
// POST /api/points/<org>/member_login belongs to the core (storefront sign-in).
import {
  DiscordRequestError, ErrorBody, HttpError, OrgParams, OrgRef, Type, badRequest, credentialOf, notFound, pageOf, pageWindow,
  type Caller, type EntityManager, type OrgSnapshot, type RoutesPlugin,
} from '@quad/core';
import { PointsEntry } from './entities.js';
import { readCheckins, type CheckinRow } from './csv.js';
import {
  addEntry, entriesOf, entryView, joinByChatUserId, joinByEmail, lockMember, memberOf, type Member,
} from './ledger.js';
import { leaderboard, listEvents, listMembers, memberSummary } from './queries.js';
import {
  ChatUserId, Email, EntryOut, EventName, LeaderRow, MemberOut, MemberRef, Paging, PublicLeaderRow, PublicMemberOut, UserParams,
} from './schemas.js';

/** The parts of a request the helpers read. */
interface FastifyRequestLike { caller: Caller | null; org: OrgSnapshot | null; log: { warn(details: object, message: string): void } }

const officer = { auth: 'officer' as const };
const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const actorOf = (request: { caller: Caller | null }) => request.caller?.actor ?? 'anonymous';

/** Whom an award names, once looked up (no rows written yet). */
type Awardee = { email: string } | { chatUserId: string; username?: string };

/** The person, created when new, and the org's record of them: in the caller's transaction. */
const join = (em: EntityManager, orgId: number, who: Awardee): Promise<Member> =>
  'email' in who ? joinByEmail(em, orgId, who.email) : joinByChatUserId(em, orgId, who.chatUserId, { username: who.username });

const memberKey = (row: CheckinRow) => row.email ? `e:${row.email}` : `d:${row.chatUserId}`;

/** A check-in row's member: by email when the row has one, else by chat user id. */
const joinCheckin = (em: EntityManager, orgId: number, row: CheckinRow): Promise<Member> =>
  row.email ? joinByEmail(em, orgId, row.email, { studentId: row.studentId }) : joinByChatUserId(em, orgId, row.chatUserId!, { studentId: row.studentId });

export const pointsRoutes: RoutesPlugin = async (app) => {
  /**
   * The member an award names: by email, chat user id or Discord username (through the bot, before any
   * transaction opens). Discord being unavailable is the core's 503 `bot_unavailable`; a refusal is a 502 whose
   * body carries no Discord text (the detail goes to the log).
   */
  async function identify(request: FastifyRequestLike, body: { email?: string; username?: string; chat_user_id?: string }): Promise<Awardee> {
    const given = [body.email, body.username, body.chat_user_id].filter((v) => v !== undefined);
    if (given.length !== 1) throw badRequest('Name exactly one of email, username or chat_user_id', 'one_member_identifier');
    if (body.email !== undefined) return { email: body.email };
    if (body.chat_user_id !== undefined) return { chatUserId: body.chat_user_id };
    const org = request.org!;
    if (!org.discordGuildId) throw badRequest('This org is not bound to a Discord server, so usernames cannot be looked up', 'no_server');
    const wanted = body.username!.trim().replace(/^@/, '').toLowerCase();
    const found = await app.quad.discord.searchMembers(org.discordGuildId, wanted, 100).catch((err: unknown) => {
      if (!(err instanceof DiscordRequestError)) throw err;
      request.log.warn({ err }, 'points: Discord refused a member search');
      throw new HttpError(502, 'Discord refused the member search', 'discord_error', { discord_status: err.status });
    });
    const match = found.find((m) => m.user.username.toLowerCase() === wanted);
    if (!match) throw notFound(`No member of the org's Discord server has the username "${wanted}"`, 'member_not_found');
    return { chatUserId: match.user.id, username: match.user.username };
  }

  app.post('/api/points/:org/awards', {
    config: officer,
    schema: {
      tags: ['points'], summary: 'Award (or with a negative amount, take) points to one member by email, Discord username or chat user id',
      params: OrgParams,
      body: Type.Object({
        email: Type.Optional(Email),
        username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        chat_user_id: Type.Optional(ChatUserId),
        amount: Type.Integer({ minimum: -100_000, maximum: 100_000, not: { const: 0 } }),
        reason: Type.Optional(Type.String({ maxLength: 500 })),
        event: Type.Optional(EventName),
      }, { additionalProperties: false }),
      response: { 201: Type.Object({ entry: EntryOut, member: MemberRef, balance: Type.Integer() }), ...Errors, 502: ErrorBody, 503: ErrorBody },
    },
  }, async (request, reply) => {
    const org = request.org!;
    const b = request.body;
    const who = await identify(request, b);
    // One transaction: the member's row and the org's record of them are written with the award, or not at all.
    const result = await request.em.transactional(async (em) => {
      const member = await join(em, org.id, who);
      const before = await lockMember(em, org.id, member.id);
      if (before + b.amount < 0) {
        throw badRequest(`The member has ${before} points; taking ${-b.amount} would leave them below zero`, 'insufficient_points', { balance: before });
      }
      const entry = await addEntry(em, {
        orgId: org.id, userId: member.id, amount: b.amount, source: 'award', reason: b.reason?.trim() ?? '',
        eventName: b.event?.trim() || null, awardedBy: actorOf(request),
      });
      await request.audit(em, 'points.award', { user_id: member.id, amount: b.amount, event: entry.eventName });
      return { entry, member: (await memberOf(em, org.id, member.id))!, balance: before + b.amount };
    });
    return reply.code(201).send({ entry: entryView(result.entry), member: result.member, balance: result.balance });
  });

  app.post('/api/points/:org/checkins', {
    config: officer,
    schema: {
      tags: ['points'],
      summary: 'Upload an event check-in sheet (CSV text): everyone on it gets the event\'s points once; nothing is written when any row is wrong',
      params: OrgParams,
      body: Type.Object({
        event: EventName,
        points: Type.Integer({ minimum: 1, maximum: 100_000, description: 'points per check-in (a points column overrides it per row)' }),
        reason: Type.Optional(Type.String({ maxLength: 500 })),
        csv: Type.String({ minLength: 1, maxLength: 2_000_000, description: 'header row, then one check-in per line: email and/or chat_user_id, optional student_id and points' }),
      }, { additionalProperties: false }),
      response: {
        201: Type.Object({
          event: Type.String(), awarded: Type.Integer(), points: Type.Integer(),
          skipped: Type.Array(Type.Object({ row: Type.Integer(), reason: Type.String() })),
        }),
        400: Type.Object({
          error: Type.String(), reason: Type.Optional(Type.String()), field: Type.Optional(Type.String()),
          errors: Type.Optional(Type.Array(Type.Object({ row: Type.Integer(), column: Type.Optional(Type.String()), message: Type.String() }))),
        }),
        401: ErrorBody, 403: ErrorBody, 404: ErrorBody,
      },
    },
  }, async (request, reply) => {
    const event = request.body.event.trim();
    if (!event) throw badRequest('event must not be blank', 'blank_event');
    const { rows, problems } = readCheckins(request.body.csv, request.body.points);
    if (problems.length) {
      throw badRequest(`The check-in sheet has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was written`, 'invalid_csv', { errors: problems });
    }
    const reason = request.body.reason?.trim() || `Checked in to ${event}`;
    const result = await request.db.transaction(async (tx) => {
      let awarded = 0;
      let points = 0;
      const skipped: { row: number; reason: string }[] = [];
      // In the order of the members' keys, so two uploads naming the same people take their row locks in one
      // order (a repeated member keeps its first line: the sort is stable).
      for (const row of [...rows].sort((x, y) => memberKey(x).localeCompare(memberKey(y)))) {
        const member = await joinCheckin(tx.em, tx.org, row);
        // Once per member and event: a second upload of the same sheet (or a repeated line) changes nothing.
        const inserted = await tx.run`
          insert into points_entries (organization_id, user_id, amount, source, reason, event_name, awarded_by)
          values (${tx.org}, ${member.id}, ${row.points}, 'checkin', ${reason}, ${event}, ${actorOf(request)})
          on conflict (organization_id, event_name, user_id) where source = 'checkin' do nothing`;
        if (inserted) { awarded++; points += row.points; } else skipped.push({ row: row.row, reason: 'already checked in to this event' });
      }
      skipped.sort((x, y) => x.row - y.row);
      await request.audit(tx.em, 'points.checkins', { event, awarded, skipped: skipped.length });
      return { event, awarded, points, skipped };
    });
    return reply.code(201).send(result);
  });

  app.get('/api/points/:org/events', {
    config: officer,
    schema: {
      tags: ['points'], summary: 'Events (rows with an event name) grouped by name, most recent first', params: OrgParams,
      response: {
        200: Type.Object({ events: Type.Array(Type.Object({
          name: Type.String(), entries: Type.Integer(), members: Type.Integer(), points: Type.Integer(),
          first_at: Type.String({ format: 'date-time' }), last_at: Type.String({ format: 'date-time' }),
        })) }),
        ...Errors,
      },
    },
  }, async (request) => ({ events: await listEvents(request.db) }));

  app.delete('/api/points/:org/events/:name', {
    config: officer,
    schema: {
      tags: ['points'], summary: 'Delete every row of an event (the points they gave are gone from the balances)', 
      params: Type.Object({ org: OrgRef, name: EventName }),
      response: { 200: Type.Object({ event: Type.String(), deleted: Type.Integer() }), ...Errors },
    },
  }, async (request) => {
    const name = request.params.name;
    const deleted = await request.em.transactional(async (em) => {
      const n = await em.nativeDelete(PointsEntry, { eventName: name });
      if (n === 0) throw notFound(`No event "${name}"`, 'event_not_found');
      await request.audit(em, 'points.delete_event', { event: name, deleted: n });
      return n;
    });
    return { event: name, deleted };
  });

  const MemberQuery = Type.Object({
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'part of a username or email, or a chat user id or student id' })),
    sort: Type.Union([Type.Literal('name'), Type.Literal('balance'), Type.Literal('recent')], { default: 'name' }),
    ...Paging,
  });

  app.get('/api/points/:org/members', {
    config: officer,
    schema: {
      tags: ['points'], summary: 'Members with points rows in the org, with balance, points earned and spent', 
      params: OrgParams, querystring: MemberQuery,
      response: { 200: pageOf('members', MemberOut), ...Errors },
    },
  }, async (request) => {
    const { q, sort, page, per_page } = request.query;
    const { members, total } = await listMembers(request.db, { q, sort, page, perPage: per_page });
    return { members, page, per_page, total };
  });

  app.get('/api/points/:org/members/:user_id/entries', {
    config: officer,
    schema: {
      tags: ['points'], summary: 'One member\'s ledger rows, newest first, with their balance', 
      params: UserParams,
      querystring: Type.Object(Paging),
      response: { 200: Type.Object({ member: MemberOut, ...pageOf('entries', EntryOut).properties }), ...Errors },
    },
  }, async (request) => {
    const { page, per_page } = request.query;
    // 404 for a user with no row in this org, whatever other orgs know of them.
    const member = await memberSummary(request.db, request.params.user_id);
    if (!member) throw notFound(`No member ${request.params.user_id} in this org`, 'member_not_found');
    const { entries, total } = await entriesOf(request.em, request.org!.id, member.user_id, pageWindow(request.query));
    return { member, entries, page, per_page, total };
  });

  const LeaderQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }) });

  app.get('/api/points/:org/leaderboard', {
    config: officer,
    schema: {
      tags: ['points'], summary: 'Top members by balance, with their details', params: OrgParams, querystring: LeaderQuery,
      response: { 200: Type.Object({ leaderboard: Type.Array(LeaderRow) }), ...Errors },
    },
  }, async (request) => ({ leaderboard: await leaderboard(request.db, request.query.limit) }));


  app.get('/api/points/:org/public/leaderboard', {
    config: { auth: 'public' },
    schema: {
      tags: ['points'], summary: 'Top members by balance for everyone: no emails or student ids (member_details_hidden)', params: OrgParams, querystring: LeaderQuery,
      response: { 200: Type.Object({ leaderboard: Type.Array(PublicLeaderRow) }), 404: ErrorBody },
    },
  }, async (request) => {
    app.auth.access.hideMemberDetails(request, credentialOf(request.caller));
    const rows = await leaderboard(request.db, request.query.limit);
    return { leaderboard: rows.map((r) => ({ rank: r.rank, user_id: r.user_id, chat_user_id: r.chat_user_id, username: r.username, balance: r.balance })) };
  });

  app.get('/api/points/:org/public/members', {
    config: { auth: 'public' },
    schema: {
      tags: ['points'], summary: 'Members with their balances for everyone: no emails or student ids (member_details_hidden)', params: OrgParams,
      querystring: Type.Object({ sort: MemberQuery.properties.sort, ...Paging }),
      response: { 200: pageOf('members', PublicMemberOut), 400: ErrorBody, 404: ErrorBody },
    },
  }, async (request) => {
    app.auth.access.hideMemberDetails(request, credentialOf(request.caller));
    const { sort, page, per_page } = request.query;
    const { members, total } = await listMembers(request.db, { sort, page, perPage: per_page });
    return {
      members: members.map((m) => ({ user_id: m.user_id, chat_user_id: m.chat_user_id, username: m.username, balance: m.balance })),
      page, per_page, total,
    };
  });
};
