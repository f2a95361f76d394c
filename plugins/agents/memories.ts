// Memories (spec "Agent routes": GET/POST /memories, DELETE /memories/<id>). A sensitive memory is sealed with the
// core's secret box under `agents.memory:<org>:<member>` before it reaches SQL, and opened only on the way out:
// without SECRETS_KEY writing one is 503 and stored ones are left out of reads (as are any that no longer open).
// Expired memories are left out of reads and deleted by agents.prune.
import { HttpError, SecretDecryptError, badRequest, notFound, sql, type CoreServices, type OrgDb } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import { iso } from './conversations.js';
import { storedConfidence } from './confidence.js';

export const KINDS = ['episodic', 'semantic', 'profile', 'task'] as const;
export type Kind = (typeof KINDS)[number];
export const SENSITIVITIES = ['normal', 'sensitive'] as const;
export const DEFAULT_CONFIDENCE = 0.5;

export interface MemoryInput {
  kind: Kind;
  content: string;
  sensitivity?: (typeof SENSITIVITIES)[number];
  confidence?: number;
  source_seq?: number | null;
  expires_in_days?: number | null;
}

export interface MemoryView {
  id: number; kind: Kind; content: string; sensitivity: string; confidence: number;
  source_seq: number | null; expires_at: string | null; created_at: string;
}

interface MemoryRow {
  id: string; kind: Kind; content: string | null; sealed: string | null; sensitivity: string; confidence: number;
  source_seq: number | null; expires_at: Date | null; created_at: Date;
}

/** What a member's sensitive memories are sealed under: their org and chat user id. */
const context = (db: OrgDb, member: string) => `agents.memory:${db.org}:${member}`;
const isoOrNull = (d: Date | null) => (d ? iso(d) : null);
const COLUMNS = sql`id, kind, content, sealed, sensitivity, confidence, source_seq, expires_at, created_at`;

function view(row: MemoryRow, content: string): MemoryView {
  return {
    id: Number(row.id), kind: row.kind, content, sensitivity: row.sensitivity, confidence: Number(row.confidence),
    source_seq: row.source_seq, expires_at: isoOrNull(row.expires_at), created_at: iso(row.created_at),
  };
}

/** 503 before anything is written when a sensitive memory cannot be sealed. */
export function checkSealable(services: CoreServices, memories: MemoryInput[]): void {
  if (memories.some((m) => m.sensitivity === 'sensitive') && !services.secrets.configured) {
    throw new HttpError(503, 'Sensitive memories need SECRETS_KEY, which this deployment has not set: nothing was written', 'secrets_unconfigured');
  }
}

/** Store memories in the handle's transaction; their views in order. */
export async function addMemories(db: OrgDb, services: CoreServices, member: string, memories: MemoryInput[]): Promise<MemoryView[]> {
  checkSealable(services, memories);
  const rows = memories.map((m, n) => {
    const sensitive = m.sensitivity === 'sensitive';
    return {
      kind: m.kind, sensitivity: sensitive ? 'sensitive' : 'normal',
      content: sensitive ? null : m.content, sealed: sensitive ? services.secrets.seal(context(db, member), m.content) : null,
      confidence: storedConfidence(m.confidence ?? DEFAULT_CONFIDENCE), source_seq: m.source_seq ?? null, expires_in_days: m.expires_in_days ?? null, n,
    };
  });
  const stored = await db.sql<MemoryRow>`
    insert into agents_memories (organization_id, member_id, kind, sensitivity, content, sealed, confidence, source_seq, expires_at)
    select ${db.org}, ${member}, r.kind, r.sensitivity, r.content, r.sealed, r.confidence, r.source_seq,
           case when r.expires_in_days is null then null else now() + make_interval(days => r.expires_in_days) end
    from json_to_recordset(${JSON.stringify(rows)}::json) as r(kind text, sensitivity text, content text, sealed text, confidence real, source_seq integer, expires_in_days integer, n integer)
    order by r.n returning ${COLUMNS}`;
  // Ids are drawn in the insert's order (`order by r.n`); the content is the caller's own (never read back from `sealed`).
  return stored.sort((a, b) => Number(a.id) - Number(b.id)).map((row, i) => view(row, memories[i].content));
}

/** Unexpired memories, highest confidence first; sensitive ones only when they can be opened. */
export async function listMemories(
  db: OrgDb, services: CoreServices, member: string, options: { kinds?: Kind[]; limit: number }, log?: FastifyBaseLogger,
): Promise<MemoryView[]> {
  if (options.limit === 0) return [];
  const sealedToo = services.secrets.configured;
  const kinds = options.kinds?.length ? options.kinds : null;
  const rows = await db.sql<MemoryRow>`
    select ${COLUMNS} from agents_memories
    where ${db.inOrg()} and member_id = ${member} and (expires_at is null or expires_at > now())
      ${kinds ? sql`and kind = any(${kinds}::text[])` : sql``} ${sealedToo ? sql`` : sql`and sensitivity = 'normal'`}
    order by confidence desc, id desc limit ${options.limit}::int`;
  const out: MemoryView[] = [];
  for (const row of rows) {
    if (row.content !== null) {
      out.push(view(row, row.content));
      continue;
    }
    try {
      out.push(view(row, services.secrets.open(context(db, member), row.sealed!)));
    } catch (err) {
      if (!(err instanceof SecretDecryptError)) throw err;
      // Sealed with a key no longer listed: left out, said once per read (never its text).
      log?.warn({ memory: Number(row.id), reason: err.reason }, 'agents: a sensitive memory cannot be opened and is left out');
    }
  }
  return out;
}

/** Delete one of the member's memories; 404 when it is not theirs. */
export async function deleteMemory(db: OrgDb, member: string, id: number): Promise<void> {
  const deleted = await db.run`delete from agents_memories where ${db.inOrg()} and member_id = ${member} and id = ${id}`;
  if (!deleted) throw notFound(`No memory ${id} of this member`, 'memory_not_found');
}

/** `?kinds=episodic,task` → the kinds; 400 naming the accepted ones otherwise. */
export function parseKinds(raw: string | undefined): Kind[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const kinds = raw.split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = kinds.filter((k) => !(KINDS as readonly string[]).includes(k));
  if (unknown.length) throw badRequest(`querystring.kinds: unknown ${unknown.join(', ')}; kinds are ${KINDS.join(', ')}`, 'bad_kinds', { field: 'querystring.kinds' });
  return kinds as Kind[];
}
