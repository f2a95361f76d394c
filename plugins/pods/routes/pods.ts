// Officer pod routes (spec "Officer pod routes", prefix /api/compute/<org>): the org's pods with their live status,
// create (on the org's own provider account, within podhost.pods), one pod, its access (is_public, allowed_users),
// actions (start, stop, restart, terminate) and the org's default image. Each change is audited and raises a pod
// event (notifications and outbound webhooks). A create with no image anywhere (body, the org's pod_image,
// PODHOST_POD_IMAGE, which has no default) is 400 no_pod_image, before anything is made.
import { randomUUID } from 'node:crypto';
import { OrgParams, Type, badRequest, orgDb, type RoutesPlugin } from '@quad/core';
import { podSpec } from '../create-body.js';
import { makePodHostKey } from '../host-keys.js';
import { SECRET_ENV, podImageEnv } from '../image-contract.js';
import { ensureOrgKeys } from '../keys.js';
import { recordLostCreate } from '../lost-creates.js';
import { orgPodImage } from '../org-settings.js';
import {
  actionEvent, askProvider, findPod, insertPod, liveStatus, orgProvider, podView, podsWithStatus, providerAction, recordPodAction, requireProvider, updateAccess,
} from '../pods.js';
import { ProviderFailed } from '../provider/types.js';
import { AccessBody, ActionBody, ActionOut, CreateBody, Errors, PodOut, PodParams, ProviderErrors, officer } from '../schemas.js';
import { MODULE, PODS_LIMIT, type PodsSettings } from '../settings.js';

const PREFIX = '/api/compute/:org/pods';
/** A create with no image in its body, none set for the org and none for the deployment. */
const NO_POD_IMAGE = 'No pod image: the create names none (image_name), the org has no default pod image (its pod_image setting, '
  + 'on the Pods page or PUT /api/compute/<org>/settings) and the deployment sets no PODHOST_POD_IMAGE (plugins/pods/image builds one)';

export default (async (app) => {
  const services = app.quad;

  app.get(PREFIX, {
    config: officer,
    schema: { tags: ['pods'], summary: 'The pods made here, with the provider\'s live status (GONE: the provider no longer has it; UNKNOWN: it could not be asked, and why)', params: OrgParams, response: { 200: Type.Object({ pods: Type.Array(PodOut) }), ...Errors, 503: ProviderErrors[503] } },
  }, async (request) => ({ pods: await podsWithStatus(services, request.db) }));

  app.post(PREFIX, {
    config: officer,
    schema: {
      tags: ['pods'], summary: 'Create a pod on the org\'s provider account (400 with the provider\'s reason when it refuses, 424 when it fails, 409 at podhost.pods)',
      params: OrgParams, body: CreateBody, response: { 201: PodOut, ...Errors, ...ProviderErrors },
    },
  }, async (request, reply) => {
    const org = request.org!;
    const { db } = request;
    const settings = services.moduleSettings<PodsSettings>(MODULE);
    // The image order (spec "Pod create body"); with none anywhere, nothing is asked of the provider or made here.
    const image = request.body.image_name ?? (await orgPodImage(services, request.em, org.id)) ?? settings.PODHOST_POD_IMAGE;
    if (!image) throw badRequest(NO_POD_IMAGE, 'no_pod_image', { field: 'body.image_name' });
    const spec = podSpec(request.body, { image, name: `${org.prefix}-pod` });
    const provider = await requireProvider(services, db);
    // The org's keys exist before its first pod asks for them (the pod trusts them from its first boot).
    const keys = await ensureOrgKeys(services, db);
    const access = { is_public: request.body.is_public ?? false, allowed_users: request.body.allowed_users ?? [] };
    const createId = randomUUID();
    // The pod's host key, certified for this create alone (host-keys.ts): its private part goes to the provider only.
    const hostKey = await makePodHostKey(services, db, org.prefix, createId);
    // A pod that may exist with no record here (lost-creates.ts), remembered outside the create's transaction: a fork
    // of the request's EntityManager keeps its org but not the transaction, so its statement commits on its own.
    const lost = () => recordLostCreate(orgDb(request.em.fork()), createId, spec.name);
    // The limit's lock is held while the provider makes the pod, so two creates cannot both take the last place.
    const row = await db.transaction(async (tx) => {
      await services.limits.reserve(tx.em, org.id, PODS_LIMIT);
      const pod = await askProvider(() => provider.create({ ...spec, createId, env: { ...spec.env, ...podImageEnv(keys, hostKey) }, secretEnv: SECRET_ENV }).catch(async (err: unknown) => {
        // No answer it could read: the provider may make the pod all the same.
        if (err instanceof ProviderFailed) await lost();
        throw err;
      }));
      try {
        const made = await insertPod(tx, pod, spec, access, request.caller?.actor ?? null, hostKey);
        await request.audit(tx.em, 'podhost.pod_created', { pod_id: pod.id, name: spec.name, kind: spec.cpu ? 'cpu' : 'gpu' });
        await services.emit(tx.em, { orgId: org.id, kind: 'podhost.pod_created', title: `Pod ${spec.name} created`, data: { pod_id: pod.id, name: spec.name } });
        return { made, pod };
      } catch (err) {
        // Nothing of it is kept here: do not leave a pod billing on the org's account.
        await provider.delete(pod.id).catch(async (cleanup: unknown) => {
          request.log.warn({ err: cleanup, pod: pod.id }, 'podhost: a pod made for a failed create could not be deleted now; podhost.schedule deletes it');
          await lost();
        });
        throw err;
      }
    });
    return reply.code(201).send(podView(row.made, { pod: row.pod }));
  });

  app.get(`${PREFIX}/:pod_id`, {
    config: officer,
    schema: { tags: ['pods'], summary: 'One pod with its live status', params: PodParams, response: { 200: PodOut, ...Errors, 503: ProviderErrors[503] } },
  }, async (request) => {
    const row = await findPod(request.db, request.params.pod_id);
    return podView(row, await liveStatus(await orgProvider(services, request.db), row.pod_id));
  });

  app.put(`${PREFIX}/:pod_id`, {
    config: officer,
    schema: { tags: ['pods'], summary: 'Who may use the pod: is_public, allowed_users (chat user ids), or both', params: PodParams, body: AccessBody, response: { 200: PodOut, ...Errors, 503: ProviderErrors[503] } },
  }, async (request) => {
    const row = await request.db.transaction(async (tx) => {
      const updated = await updateAccess(tx, request.params.pod_id, request.body);
      await request.audit(tx.em, 'podhost.pod_access', { pod_id: updated.pod_id, is_public: updated.is_public, allowed_users: updated.allowed_users.length });
      return updated;
    });
    return podView(row, await liveStatus(await orgProvider(services, request.db), row.pod_id));
  });

  app.post(`${PREFIX}/:pod_id/action`, {
    config: officer,
    schema: {
      tags: ['pods'], summary: 'start, stop (only its disk is billed), restart, or terminate (the pod and its record are deleted)',
      params: PodParams, body: ActionBody, response: { 200: ActionOut, ...Errors, ...ProviderErrors },
    },
  }, async (request) => {
    const { db } = request;
    const { action } = request.body;
    const row = await findPod(db, request.params.pod_id);
    const provider = await requireProvider(services, db);
    await providerAction(provider, row, action);
    await db.transaction(async (tx) => {
      await recordPodAction(services, tx, row, action);
      await request.audit(tx.em, actionEvent(action), { pod_id: row.pod_id });
    });
    const pod = action === 'terminate' ? null : podView(row, await liveStatus(provider, row.pod_id));
    return { pod_id: row.pod_id, action, pod };
  });
}) satisfies RoutesPlugin;
