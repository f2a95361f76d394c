// The two crawl routes that the machine API and the officer routes share (PUT /crawls/<key>, POST /crawls/run):
// one handler each, so both prefixes answer alike.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CoreServices } from '@quad/core';
import { settingsOf } from '../context.js';
import { sourceKey } from '../sources.js';
import { saveCrawl, type CrawlInput } from './records.js';
import { startCrawl } from './jobs.js';

/** Save the crawl record of the path's key, audited in the same transaction: 201 when new, 200 when changed. */
export async function putCrawl(services: CoreServices, request: FastifyRequest, reply: FastifyReply, rawKey: string, body: CrawlInput) {
  const key = sourceKey(rawKey);
  const { crawl, created } = await request.db.transaction(async (tx) => {
    const saved = await saveCrawl(tx, request.org!, settingsOf(services), key, body);
    await request.audit(tx.em, saved.created ? 'knowledge.crawl_created' : 'knowledge.crawl_changed', { key, changes: body });
    return saved;
  });
  return reply.code(created ? 201 : 200).send(crawl);
}

/** Start a crawl of the body's key now: 202 with the run. */
export async function runCrawl(services: CoreServices, request: FastifyRequest, reply: FastifyReply, body: { key: string; force?: boolean }) {
  const key = sourceKey(body.key, 'body.key');
  const force = body.force ?? false;
  const started = await startCrawl(request.db, services, key, force);
  await request.audit(request.em, 'knowledge.crawl_started', { key, force, ...started });
  return reply.code(202).send(started);
}
