// Problems: notifications keyed by their cause (a failed feed run, a failed deploy, a source that cannot be
// fetched). Raising a problem again updates its row (and counts it); a resolved problem reopens only when its
// message changes; clearing it (the cause was fixed) deletes the row. Officers cannot delete problems.
import type { EntityManager } from '@mikro-orm/postgresql';
import { MESSAGE_MAX, TITLE_MAX } from './events.js';
import { orgDbFor } from '../db/org-db.js';

import type { ProblemInput, RaisedProblem } from '../core-services.js';
export type { ProblemInput, RaisedProblem } from '../core-services.js';

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Raise (or raise again) a problem, in the caller's transaction. */
export async function raiseProblem(em: EntityManager, input: ProblemInput): Promise<RaisedProblem> {
  const key = input.key.trim();
  if (!key) throw new Error('raiseProblem: key must not be empty');
  const kind = input.kind ?? key.split(':')[0];
  const title = cut(input.title.trim() || kind, TITLE_MAX);
  const message = cut(input.message ?? '', MESSAGE_MAX);
  const db = orgDbFor(em, input.orgId);
  // In UPDATE SET every right-hand side reads the row as it was, so `notifications.message` is the old message.
  const row = (await db.one<{ id: string | number; status: 'open' | 'resolved'; occurrences: number; created: boolean; was: string | null }>`
    insert into notifications as n (organization_id, category, kind, problem_key, title, message, data)
     values (${db.org}, 'problem', ${kind}, ${key}, ${title}, ${message}, ${JSON.stringify(input.data ?? {})}::jsonb)
     on conflict (organization_id, problem_key) where problem_key is not null do update set
       kind = excluded.kind, title = excluded.title, data = excluded.data, message = excluded.message,
       raised_at = now(), updated_at = now(), occurrences = n.occurrences + 1,
       status = case when n.message is distinct from excluded.message then 'open' else n.status end,
       resolved_at = case when n.message is distinct from excluded.message then null else n.resolved_at end,
       resolved_by = case when n.message is distinct from excluded.message then null else n.resolved_by end
     returning n.id, n.status, n.occurrences, (xmax = 0) as created,
       (select status from notifications o where o.id = n.id) as was`)!;
  return {
    id: Number(row.id), status: row.status, occurrences: row.occurrences, created: row.created,
    reopened: !row.created && row.was === 'resolved' && row.status === 'open',
  };
}

/** The cause was fixed: the problem disappears. True when there was one. */
export async function clearProblem(em: EntityManager, orgId: number, key: string): Promise<boolean> {
  const db = orgDbFor(em, orgId);
  return (await db.run`delete from notifications where ${db.inOrg()} and category = 'problem' and problem_key = ${key}`) > 0;
}
