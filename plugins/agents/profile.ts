// A member's profile graph (spec "Agent routes": /profile…): nodes are exact (kind, label) pairs, relations keep the
// highest confidence they were given, matching ignores case, and similar nodes are found by the vector of
// `kind: label` from the org's embedder — the knowledge module's service `knowledge.embeddings` (this module never
// imports it). Without that service, an embedder or pgvector there are no vectors, and /similar is 503.
import { HttpError, defineService, notFound, sql, type CoreServices, type EntityManager, type OrgDb } from '@quad/core';
import { storedConfidence } from './confidence.js';

export interface NodeRef { kind: string; label: string }
export interface FactInput { subject: NodeRef; relation: string; object: NodeRef; confidence?: number }
export interface Relation { subject: NodeRef; relation: string; object: NodeRef; confidence: number }

export const DEFAULT_FACT_CONFIDENCE = 0.5;

/** What this module uses of the knowledge module's `knowledge.embeddings`. */
interface OrgEmbeddings {
  embed(em: EntityManager, orgId: number, texts: string[], kind: 'query' | 'passage'): Promise<{ model: string; vectors: number[][] } | null>;
}
const orgEmbeddings = defineService<OrgEmbeddings>({ id: 'knowledge.embeddings', methods: ['embed'] });

/** The org's embedder through the knowledge module, or null when no loaded module provides one. */
function embeddings(services: CoreServices): OrgEmbeddings | null {
  // Not in the manifest's `consumes`: the agents module runs without the knowledge module (no vectors then).
  return services.registry.services.has(orgEmbeddings.id) ? services.service(orgEmbeddings) : null;
}

const nodeText = (n: NodeRef) => `${n.kind}: ${n.label}`;
const nodeKey = (n: NodeRef) => JSON.stringify([n.kind, n.label]);

/** The distinct nodes that facts or relations link, in first-seen order. */
function nodesOf(links: readonly { subject: NodeRef; object: NodeRef }[]): NodeRef[] {
  const nodes = new Map<string, NodeRef>();
  for (const l of links) for (const n of [l.subject, l.object]) nodes.set(nodeKey(n), n);
  return [...nodes.values()];
}
const vectorLiteral = (v: number[]) => `[${v.join(',')}]`;

async function embed(services: CoreServices, db: OrgDb, texts: string[], kind: 'query' | 'passage') {
  const service = embeddings(services);
  if (!service) return null;
  try {
    return await service.embed(db.em, db.org, texts, kind);
  } catch (err) {
    if (err instanceof HttpError) throw err; // the day's embeddings limit (429)
    throw new HttpError(502, `The embeddings service failed, so nothing was written: ${(err as Error).message}`, 'embedder_failed');
  }
}

export interface PreparedFacts {
  facts: FactInput[];
  /** Every node the facts link. */
  nodes: NodeRef[];
  /** Vectors of the nodes the member does not have yet, by nodeKey. */
  vectors: Map<string, { model: string; vector: number[] }>;
}

/**
 * Before the transaction: the vectors of the facts' nodes the member does not have yet (when the org has an
 * embedder). A failing embedder is 502 and nothing is written.
 */
export async function prepareFacts(db: OrgDb, services: CoreServices, member: string, facts: FactInput[]): Promise<PreparedFacts> {
  const nodes = nodesOf(facts);
  const existing = nodes.length === 0 ? [] : await db.sql<NodeRef>`
    select n.kind, n.label from agents_profile_nodes n join json_to_recordset(${JSON.stringify(nodes)}::json) as r(kind text, label text)
      on n.kind = r.kind and n.label = r.label where ${db.inOrg('n')} and n.member_id = ${member}`;
  const known = new Set(existing.map(nodeKey));
  const missing = nodes.filter((n) => !known.has(nodeKey(n)));
  const vectors = new Map<string, { model: string; vector: number[] }>();
  if (!missing.length) return { facts, nodes, vectors };
  const embedded = await embed(services, db, missing.map(nodeText), 'passage');
  if (embedded) missing.forEach((n, i) => vectors.set(nodeKey(n), { model: embedded.model, vector: embedded.vectors[i] }));
  return { facts, nodes, vectors };
}

const RELATION_SELECT = sql`select s.kind as sk, s.label as sl, e.relation, o.kind as ok, o.label as ol, e.confidence
  from agents_profile_edges e join agents_profile_nodes s on s.id = e.subject_id join agents_profile_nodes o on o.id = e.object_id`;

type RelationRow = { sk: string; sl: string; relation: string; ok: string; ol: string; confidence: number };
const relationOf = (e: RelationRow): Relation => ({ subject: { kind: e.sk, label: e.sl }, relation: e.relation, object: { kind: e.ok, label: e.ol }, confidence: Number(e.confidence) });

/** Write prepared facts in the handle's transaction; each relation with the confidence it now has. */
export async function writeFacts(db: OrgDb, member: string, prepared: PreparedFacts, withVectors: boolean): Promise<Relation[]> {
  const { facts, nodes, vectors } = prepared;
  if (!facts.length) return [];
  const rows = nodes.map((n) => {
    const v = vectors.get(nodeKey(n));
    return { kind: n.kind, label: n.label, model: v?.model ?? null, vector: v ? vectorLiteral(v.vector) : null };
  });
  await db.run`
    insert into agents_profile_nodes (organization_id, member_id, kind, label, embedding_model${withVectors ? sql`, embedding` : sql``})
    select ${db.org}, ${member}, r.kind, r.label, ${withVectors ? sql`r.model, r.vector::vector` : sql`null`}
    from json_to_recordset(${JSON.stringify(rows)}::json) as r(kind text, label text, model text, vector text)
    on conflict (organization_id, member_id, kind, label) do nothing`;
  const edges = facts.map((f) => ({
    sk: f.subject.kind, sl: f.subject.label, relation: f.relation, ok: f.object.kind, ol: f.object.label, confidence: storedConfidence(f.confidence ?? DEFAULT_FACT_CONFIDENCE),
  }));
  // One statement; a relation given twice in one body keeps its highest confidence like any other.
  const stored = await db.sql<RelationRow>`
    with wanted as (
      select r.sk, r.sl, r.relation, r.ok, r.ol, max(r.confidence) as confidence
      from json_to_recordset(${JSON.stringify(edges)}::json) as r(sk text, sl text, relation text, ok text, ol text, confidence real)
      group by r.sk, r.sl, r.relation, r.ok, r.ol
    ), resolved as (
      select s.id as subject_id, o.id as object_id, w.* from wanted w
      join agents_profile_nodes s on ${db.inOrg('s')} and s.member_id = ${member} and s.kind = w.sk and s.label = w.sl
      join agents_profile_nodes o on ${db.inOrg('o')} and o.member_id = ${member} and o.kind = w.ok and o.label = w.ol
    ), upserted as (
      insert into agents_profile_edges (organization_id, member_id, subject_id, relation, object_id, confidence)
      select ${db.org}, ${member}, subject_id, relation, object_id, confidence from resolved
      on conflict (subject_id, relation, object_id) do update
        set confidence = greatest(agents_profile_edges.confidence, excluded.confidence), updated_at = now()
      returning subject_id, relation, object_id, confidence
    )
    select r.sk, r.sl, r.relation, r.ok, r.ol, u.confidence from upserted u
    join resolved r on r.subject_id = u.subject_id and r.relation = u.relation and r.object_id = u.object_id`;
  return stored.map(relationOf);
}

/** The member's relations, highest confidence first (up to `limit`), and the nodes they link. */
export async function readProfile(db: OrgDb, member: string, limit: number): Promise<{ nodes: NodeRef[]; relations: Relation[] }> {
  if (limit === 0) return { nodes: [], relations: [] };
  const rows = await db.sql<RelationRow>`
    ${RELATION_SELECT} where ${db.inOrg('e')} and e.member_id = ${member} order by e.confidence desc, e.id desc limit ${limit}::int`;
  const relations = rows.map(relationOf);
  return { nodes: nodesOf(relations), relations };
}

/** Relations from subjects of that label (any case), optionally of one relation (any case). */
export async function matching(db: OrgDb, member: string, subject: string, relation?: string): Promise<Relation[]> {
  const rows = await db.sql<RelationRow>`
    ${RELATION_SELECT} where ${db.inOrg('e')} and e.member_id = ${member} and lower(s.label) = lower(${subject})
    ${relation !== undefined ? sql`and lower(e.relation) = lower(${relation})` : sql``} order by e.confidence desc, e.id desc limit 200`;
  return rows.map(relationOf);
}

/** The member's nodes nearest to `text`, with cosine distance; 503 without an embedder. */
export async function similar(db: OrgDb, services: CoreServices, member: string, text: string, limit: number) {
  const embedded = await embed(services, db, [text], 'query');
  if (!embedded) throw new HttpError(503, 'Similar nodes need an embeddings service: connect one on the Integrations tab (or the deployment\'s EMBEDDINGS_URL)', 'no_embedder');
  const rows = await db.sql<{ kind: string; label: string; distance: number }>`
    select kind, label, embedding <=> ${vectorLiteral(embedded.vectors[0])}::vector as distance from agents_profile_nodes
    where ${db.inOrg()} and member_id = ${member} and embedding_model = ${embedded.model} and embedding is not null
    order by distance limit ${limit}::int`;
  return rows.map((r) => ({ kind: r.kind, label: r.label, distance: Number(r.distance) }));
}

export async function deleteRelation(db: OrgDb, member: string, fact: { subject: NodeRef; relation: string; object: NodeRef }): Promise<void> {
  const deleted = await db.run`
    delete from agents_profile_edges e using agents_profile_nodes s, agents_profile_nodes o
    where ${db.inOrg('e')} and e.member_id = ${member} and s.id = e.subject_id and o.id = e.object_id
      and s.kind = ${fact.subject.kind} and s.label = ${fact.subject.label} and e.relation = ${fact.relation}
      and o.kind = ${fact.object.kind} and o.label = ${fact.object.label}`;
  if (!deleted) throw notFound('No such relation of this member', 'relation_not_found');
}

/** Delete the member's nodes of that label (any case) with their relations; how many nodes. */
export async function deleteNodes(db: OrgDb, member: string, label: string): Promise<number> {
  const deleted = await db.run`delete from agents_profile_nodes where ${db.inOrg()} and member_id = ${member} and lower(label) = lower(${label})`;
  if (!deleted) throw notFound(`No node labelled "${label}" of this member`, 'node_not_found');
  return deleted;
}

/** Everything the member's agents remember of them: the profile graph and memories (conversations stay until pruned). */
export async function deleteMemberData(db: OrgDb, member: string) {
  return (await db.one<{ memories: number; nodes: number; relations: number }>`
    with r as (delete from agents_profile_edges where ${db.inOrg()} and member_id = ${member} returning 1),
         n as (delete from agents_profile_nodes where ${db.inOrg()} and member_id = ${member} returning 1),
         m as (delete from agents_memories where ${db.inOrg()} and member_id = ${member} returning 1)
    select (select count(*) from m)::int as memories, (select count(*) from n)::int as nodes, (select count(*) from r)::int as relations`)!;
}

/** Everything of the member: conversations (with messages and summaries), pending actions, the profile and memories. */
export async function deleteEverything(db: OrgDb, member: string) {
  const gone = (await db.one<{ conversations: number; pending: number }>`
    with c as (delete from agents_conversations where ${db.inOrg()} and member_id = ${member} returning 1),
         p as (delete from agents_pending where ${db.inOrg()} and member_id = ${member} returning 1)
    select (select count(*) from c)::int as conversations, (select count(*) from p)::int as pending`)!;
  return { ...gone, ...(await deleteMemberData(db, member)) };
}
