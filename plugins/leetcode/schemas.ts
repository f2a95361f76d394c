// Request and response shapes of the LeetCode routes and tools (the spec leaves the paths and fields to us: README
// "Routes"). Path params and bodies are strict (patterns, lengths, no extra properties), so bad input is a 400.
import { badRequest, ErrorBody, OrgRef, pageOf, pagingQuery, Type } from '@quad/core';

export const officer = { auth: 'officer' as const };
export const member = { auth: 'member' as const };
export const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Time = Type.String({ format: 'date-time' });

export const Snowflake = (description: string) => Type.String({ pattern: '^[0-9]{17,20}$', description });
export const ChatUserId = Snowflake('the member\'s Discord user id');
export const Username = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$', description: 'a LeetCode username (letters, digits, _ . -)' });
export const Day = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'a UTC day, YYYY-MM-DD; default today' });

export const MemberParams = Type.Object({ org: OrgRef, chat_user_id: ChatUserId });
export const LinkBody = Type.Object({ username: Username }, { additionalProperties: false });

export const SettingsBody = Type.Object({
  channel_id: Type.Optional(Nullable(Snowflake('the Discord channel the daily problem is posted to; null: post nothing'))),
  post_hour_utc: Type.Optional(Type.Integer({ minimum: 0, maximum: 23, description: 'the UTC hour from which the day\'s problem is posted (default 14)' })),
  points_per_solve: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'points a solve earns while the points module is on (default 10)' })),
  enabled: Type.Optional(Type.Boolean({ description: 'false: the daily job posts nothing (Post now still works)' })),
}, { additionalProperties: false, minProperties: 1 });

export const SettingsOut = Type.Object({
  channel_id: Nullable(Type.String()),
  post_hour_utc: Type.Integer(),
  points_per_solve: Type.Integer(),
  enabled: Type.Boolean(),
  points_enabled: Type.Boolean({ description: 'the points module is loaded and on for the org: solves earn points_per_solve' }),
});

export const LinkOut = Type.Object({
  chat_user_id: Type.String(), username: Type.String(), display_name: Nullable(Type.String()),
  linked_by: Type.String({ description: 'member:<id> (the member\'s own link), officer:<id> or machine:<id>' }),
  linked_at: Time, updated_at: Time,
});
export const LinksOut = pageOf('links', LinkOut);
export const LinksQuery = Type.Object(pagingQuery({ default: 100, maximum: 200 }), { additionalProperties: false });

export const PostOut = Type.Object({
  date: Type.String(), question_id: Type.String(), title: Type.String(), slug: Type.String(), difficulty: Type.String(),
  link: Type.String(), tags: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('posting'), Type.Literal('posted'), Type.Literal('failed')]),
  channel_id: Type.String(), message_id: Nullable(Type.String()), error: Nullable(Type.String()), posted_at: Nullable(Time),
  solves: Type.Integer({ description: 'members who solved it that day' }),
});
export const DailyOut = Type.Object({ date: Type.String(), post: Nullable(PostOut) });
export const DayQuery = Type.Object({ date: Type.Optional(Day) }, { additionalProperties: false });

export const SolveOut = Type.Object({
  chat_user_id: Type.String(), username: Type.String(), display_name: Nullable(Type.String()), solved_at: Time,
  points: Type.Integer({ description: 'points awarded (0 while the points module was off)' }),
});
export const SolvesOut = Type.Object({ date: Type.String(), ...pageOf('solves', SolveOut).properties });
export const SolvesQuery = Type.Object({ date: Type.Optional(Day), ...pagingQuery({ default: 100, maximum: 200 }) }, { additionalProperties: false });

export const PostNowBody = Type.Object({
  force: Type.Optional(Type.Boolean({ description: 'post again even when today\'s problem is posted' })),
}, { additionalProperties: false });
export const PostNowOut = Type.Object({ run_id: Type.Integer() });

export const MeOut = Type.Object({
  chat_user_id: Type.String(),
  link: Nullable(LinkOut),
  today: Type.Object({
    date: Type.String(),
    problem: Nullable(Type.Object({ question_id: Type.String(), title: Type.String(), difficulty: Type.String(), link: Type.String() })),
    solved: Type.Boolean(),
  }),
});

/** A real calendar day (the pattern lets 2026-02-31 through); 400 otherwise. */
export function checkDay(day: string, field = 'querystring.date'): string {
  const parsed = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day) throw badRequest(`${field}: not a calendar day`, 'validation', { field });
  return day;
}
