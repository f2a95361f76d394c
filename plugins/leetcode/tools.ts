// The LeetCode tools, for machine tokens while the module is on (the core checks the scope and binds the org):
// leetcode.daily and leetcode.solves (leetcode:read), leetcode.link and leetcode.unlink with confirm (leetcode:manage).
import { defineTool, notFound, pageWindow, Type } from '@quad/core';
import { findPost, utcDay } from './daily.js';
import { findLink, memberDisplayName, resolveUsername, saveLink, unlinkMember } from './links.js';
import { listSolves } from './solves.js';
import { ChatUserId, checkDay, DailyOut, Day, LinkOut, SolvesOut, Username } from './schemas.js';

const READ = 'leetcode:read';
const MANAGE = 'leetcode:manage';

export const dailyTool = defineTool({
  name: 'leetcode.daily',
  title: 'The LeetCode daily problem as posted',
  description: 'The LeetCode daily problem the org posted to its Discord channel on a UTC day (default today): number, title, difficulty, '
    + 'link, tags, whether the post went out, and how many members solved it. post is null when nothing was posted that day. '
    + 'Example: {} or {"date": "2026-03-02"}',
  scope: READ,
  input: Type.Object({ date: Type.Optional(Day) }, { additionalProperties: false }),
  output: DailyOut,
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }, input) {
    const date = input.date ? checkDay(input.date, 'date') : utcDay(new Date());
    return { date, post: await findPost(db, date) };
  },
});

export const solvesTool = defineTool({
  name: 'leetcode.solves',
  title: 'Who solved the LeetCode daily problem',
  description: 'The members who solved the org\'s posted LeetCode daily problem on a UTC day (default today), in solve order, with the '
    + 'points each earned; 100 a page. Example: {"date": "2026-03-02"}',
  scope: READ,
  input: Type.Object({
    date: Type.Optional(Day),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  }, { additionalProperties: false }),
  output: SolvesOut,
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }, input) {
    const date = input.date ? checkDay(input.date, 'date') : utcDay(new Date());
    const page = input.page ?? 1;
    const per_page = input.per_page ?? 100;
    return { date, ...(await listSolves(db, date, pageWindow({ page, per_page }))), page, per_page };
  },
});

export const linkTool = defineTool({
  name: 'leetcode.link',
  title: 'Link a member\'s LeetCode username',
  description: 'Links a member of the org (their Discord user id) to a LeetCode username, or changes their link, so their solves of the '
    + 'daily problem are counted. The member must be on the org\'s Discord server and LeetCode must know the user; a username another member linked is refused. '
    + 'Example: {"chat_user_id": "123456789012345678", "username": "ada_l"}',
  scope: MANAGE,
  input: Type.Object({ chat_user_id: ChatUserId, username: Username }, { additionalProperties: false }),
  output: Type.Object({ created: Type.Boolean(), link: LinkOut }),
  annotations: { idempotent: true },
  async handler({ db, org, services, caller }, input) {
    const displayName = await memberDisplayName(services, org, input.chat_user_id);
    const username = await resolveUsername(services, input.username);
    return saveLink(db, { chatUserId: input.chat_user_id, username, displayName, linkedBy: caller.actor });
  },
});

export const unlinkTool = defineTool({
  name: 'leetcode.unlink',
  title: 'Remove a member\'s LeetCode link',
  description: 'Removes the LeetCode username linked to a member (their recorded solves stay). Without confirm it answers what it would '
    + 'remove. Example: {"chat_user_id": "123456789012345678", "confirm": true}',
  scope: MANAGE,
  input: Type.Object({ chat_user_id: ChatUserId }, { additionalProperties: false }),
  output: LinkOut,
  annotations: { destructive: true },
  confirm: true,
  async preview({ db }, input) {
    const link = await findLink(db, input.chat_user_id);
    if (!link) throw notFound('That member has no LeetCode username linked', 'not_linked');
    return { unlink: input.chat_user_id, username: link.username };
  },
  async handler({ db }, input) {
    return unlinkMember(db, input.chat_user_id);
  },
});

export const leetcodeTools = [dailyTool, solvesTool, linkTool, unlinkTool];
