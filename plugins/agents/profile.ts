// A member's profile graph (spec "Agent routes": /profile…): nodes are exact (kind, label) pairs, relations keep the
// highest confidence they were given, matching ignores case, and similar nodes are found by the vector of
// `kind: label` from the org's embedder — the knowledge module's service `knowledge.embeddings` (this module never
// imports it). Without that service, an embedder or pgvector there are no vectors, and /similar is 503.
import { HttpError, defineService, notFound, type CoreServices, type EntityManager } from '@quad/core';
import type { Owner } from './conversations.js';
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

async function embed(services: CoreServices, em: EntityManager, orgId: number, texts: string[], kind: 'query' | 'passage') {
  const service = embeddings(services);
  if (!service) return null;
  try {
    return await service.embed(em, orgId, texts, kind);
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
export async function prepareFacts(em: EntityManager, services: CoreServices, owner: Owner, facts: FactInput[]): Promise<PreparedFacts> {
  const nodes = nodesOf(facts);
  const existing: { kind: string; label: string }[] = nodes.length === 0 ? [] : await em.execute(
    `select n.kind, n.label from agents_profile_nodes n join json_to_recordset(?::json) as r(kind text, label text)
       on n.kind = r.kind and n.label = r.label where n.organization_id = ? and n.member_id = ?`,
    [JSON.stringify(nodes), owner.orgId, owner.member]);
  const known = new Set(existing.map(nodeKey));
  const missing = nodes.filter((n) => !known.has(nodeKey(n)));
  const vectors = new Map<string, { model: string; vector: number[] }>();
  if (!missing.length) return { facts, nodes, vectors };
  const embedded = await embed(services, em, owner.orgId, missing.map(nodeText), 'passage');
  if (embedded) missing.forEach((n, i) => vectors.set(nodeKey(n), { model: embedded.model, vector: embedded.vectors[i] }));
  return { facts, nodes, vectors };
}

/** Write prepared facts in the caller's transaction; each relation with the confidence it now has. */
export async function writeFacts(em: EntityManager, owner: Owner, prepared: PreparedFacts, withVectors: boolean): Promise<Relation[]> {
  const { facts, nodes, vectors } = prepared;
  if (!facts.length) return [];
  const rows = nodes.map((n) => {
    const v = vectors.get(nodeKey(n));
    return { kind: n.kind, label: n.label, model: v?.model ?? null, vector: v ? vectorLiteral(v.vector) : null };
  });
  await em.execute(
    `insert into agents_profile_nodes (organization_id, member_id, kind, label, embedding_model${withVectors ? ', embedding' : ''})
     select ?, ?, r.kind, r.label, ${withVectors ? 'r.model, r.vector::vector' : 'null'}
     from json_to_recordset(?::json) as r(kind text, label text, model text, vector text)
     on conflict (organization_id, member_id, kind, label) do nothing`,
    [owner.orgId, owner.member, JSON.stringify(rows)]);
  const edges = facts.map((f) => ({
    sk: f.subject.kind, sl: f.subject.label, relation: f.relation, ok: f.object.kind, ol: f.object.label, confidence: storedConfidence(f.confidence ?? DEFAULT_FACT_CONFIDENCE),
  }));
  // One statement; a relation given twice in one body keeps its highest confidence like any other.
  const stored: { sk: string; sl: string; relation: string; ok: string; ol: string; confidence: number }[] = await em.execute(
    `with wanted as (
       select r.sk, r.sl, r.relation, r.ok, r.ol, max(r.confidence) as confidence
       from json_to_recordset(?::json) as r(sk text, sl text, relation text, ok text, ol text, confidence real)
       group by r.sk, r.sl, r.relation, r.ok, r.ol
     ), resolved as (
       select s.id as subject_id, o.id as object_id, w.* from wanted w
       join agents_profile_nodes s on s.organization_id = ? and s.member_id = ? and s.kind = w.sk and s.label = w.sl
       join agents_profile_nodes o on o.organization_id = ? and o.member_id = ? and o.kind = w.ok and o.label = w.ol
     ), upserted as (
       insert into agents_profile_edges (organization_id, member_id, subject_id, relation, object_id, confidence)
       select ?, ?, subject_id, relation, object_id, confidence from resolved
       on conflict (subject_id, relation, object_id) do update
         set confidence = greatest(agents_profile_edges.confidence, excluded.confidence), updated_at = now()
       returning subject_id, relation, object_id, confidence
     )
     select r.sk, r.sl, r.relation, r.ok, r.ol, u.confidence from upserted u
     join resolved r on r.subject_id = u.subject_id and r.relation = u.relation and r.object_id = u.object_id`,
    [JSON.stringify(edges), owner.orgId, owner.member, owner.orgId, owner.member, owner.orgId, owner.member]);
  return stored.map((e) => ({ subject: { kind: e.sk, label: e.sl }, relation: e.relation, object: { kind: e.ok, label: e.ol }, confidence: Number(e.confidence) }));
}

const RELATION_SELECT = `select s.kind as sk, s.label as sl, e.relation, o.kind as ok, o.label as ol, e.confidence
  from agents_profile_edges e join agents_profile_nodes s on s.id = e.subject_id join agents_profile_nodes o on o.id = e.object_id`;

type RelationRow = { sk: string; sl: string; relation: string; ok: string; ol: string; confidence: number };
const relationOf = (e: RelationRow): Relation => ({ subject: { kind: e.sk, label: e.sl }, relation: e.relation, object: { kind: e.ok, label: e.ol }, confidence: Number(e.confidence) });

/** The member's relations, highest confidence first (up to `limit`), and the nodes they link. */
export async function readProfile(em: EntityManager, owner: Owner, limit: number): Promise<{ nodes: NodeRef[]; relations: Relation[] }> {
  if (limit === 0) return { nodes: [], relations: [] };
  const rows: RelationRow[] = await em.execute(
    `${RELATION_SELECT} where e.organization_id = ? and e.member_id = ? order by e.confidence desc, e.id desc limit ?`, [owner.orgId, owner.member, limit]);
  const relations = rows.map(relationOf);
  return { nodes: nodesOf(relations), relations };
}

/** Relations from subjects of that label (any case), optionally of one relation (any case). */
export async function matching(em: EntityManager, owner: Owner, subject: string, relation?: string): Promise<Relation[]> {
  const rows: RelationRow[] = await em.execute(
    `${RELATION_SELECT} where e.organization_id = ? and e.member_id = ? and lower(s.label) = lower(?)
     ${relation !== undefined ? 'and lower(e.relation) = lower(?)' : ''} order by e.confidence desc, e.id desc limit 200`,
    relation !== undefined ? [owner.orgId, owner.member, subject, relation] : [owner.orgId, owner.member, subject]);
  return rows.map(relationOf);
}

/** The member's nodes nearest to `text`, with cosine distance; 503 without an embedder. */
export async function similar(em: EntityManager, services: CoreServices, owner: Owner, text: string, limit: number) {
  const embedded = await embed(services, em, owner.orgId, [text], 'query');
  if (!embedded) throw new HttpError(503, 'Similar nodes need an embeddings service: connect one on the Integrations tab (or the deployment\'s EMBEDDINGS_URL)', 'no_embedder');
  const rows: { kind: string; label: string; distance: number }[] = await em.execute(
    `select kind, label, embedding <=> ?::vector as distance from agents_profile_nodes
     where organization_id = ? and member_id = ? and embedding_model = ? and embedding is not null
     order by distance limit ?`, [vectorLiteral(embedded.vectors[0]), owner.orgId, owner.member, embedded.model, limit]);
  return rows.map((r) => ({ kind: r.kind, label: r.label, distance: Number(r.distance) }));
}

export async function deleteRelation(em: EntityManager, owner: Owner, fact: { subject: NodeRef; relation: string; object: NodeRef }): Promise<void> {
  const rows = await em.execute(
    `delete from agents_profile_edges e using agents_profile_nodes s, agents_profile_nodes o
     where e.organization_id = ? and e.member_id = ? and s.id = e.subject_id and o.id = e.object_id
       and s.kind = ? and s.label = ? and e.relation = ? and o.kind = ? and o.label = ? returning e.id`,
    [owner.orgId, owner.member, fact.subject.kind, fact.subject.label, fact.relation, fact.object.kind, fact.object.label]);
  if (!rows.length) throw notFound('No such relation of this member', 'relation_not_found');
}

/** Delete the member's nodes of that label (any case) with their relations; how many nodes. */
export async function deleteNodes(em: EntityManager, owner: Owner, label: string): Promise<number> {
  const rows = await em.execute(
    'delete from agents_profile_nodes where organization_id = ? and member_id = ? and lower(label) = lower(?) returning id', [owner.orgId, owner.member, label]);
  if (!rows.length) throw notFound(`No node labelled "${label}" of this member`, 'node_not_found');
  return rows.length;
}

/** Everything the member's agents remember of them: the profile graph and memories (conversations stay until pruned). */
export async function deleteMemberData(em: EntityManager, owner: Owner) {
  const [counts]: { memories: number; nodes: number; relations: number }[] = await em.execute(
    `with r as (delete from agents_profile_edges where organization_id = ? and member_id = ? returning 1),
          n as (delete from agents_profile_nodes where organization_id = ? and member_id = ? returning 1),
          m as (delete from agents_memories where organization_id = ? and member_id = ? returning 1)
     select (select count(*) from m)::int as memories, (select count(*) from n)::int as nodes, (select count(*) from r)::int as relations`,
    [owner.orgId, owner.member, owner.orgId, owner.member, owner.orgId, owner.member]);
  return counts;
}

/** Everything of the member: conversations (with messages and summaries), pending actions, the profile and memories. */
export async function deleteEverything(em: EntityManager, owner: Owner) {
  const [gone]: { conversations: number; pending: number }[] = await em.execute(
    `with c as (delete from agents_conversations where organization_id = ? and member_id = ? returning 1),
          p as (delete from agents_pending where organization_id = ? and member_id = ? returning 1)
     select (select count(*) from c)::int as conversations, (select count(*) from p)::int as pending`,
    [owner.orgId, owner.member, owner.orgId, owner.member]);
  return { ...gone, ...(await deleteMemberData(em, owner)) };
}
