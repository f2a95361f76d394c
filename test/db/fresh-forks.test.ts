// A fresh fork is of its own ORM, whatever transaction runs around the call: forkFor and the cross-org path never
// take the EntityManager of a transaction in the async context (MikroORM's context resolution), whose driver,
// connection or org would then be theirs. A test's own owner ORM beside the service's once shared a connection so,
// and their prepared finds' names collided ("Prepared statements must be unique").
import t from 'tap';
import { Organization } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { forkFor } from '../../core/src/db/orm.js';
import type { QuadEntityManager } from '../../core/src/db/entity-manager.js';
import sample, { SampleItem } from '../fixtures/sample-module.js';

t.test('fresh forks inside another transaction', async (t) => {
  const quad = await startTestApp(t, { plugins: [sample] });
  const [aa, bb] = [await quad.createOrg({ prefix: 'aa', modules: { sample: true } }), await quad.createOrg({ prefix: 'bb', modules: { sample: true } })];
  t.equal((await quad.api.inject({ method: 'POST', url: '/api/sample/aa/items', payload: { label: 'one' } })).statusCode, 201);

  await quad.orm.em.fork().transactional(async (ownerTx) => {
    await ownerTx.find(Organization, {});
    const fork = forkFor(quad.serviceOrm, aa.id);
    t.equal(fork.getDriver(), quad.serviceOrm.em.getDriver(), 'inside the owner ORM\'s transaction, forkFor gives a fork of the service ORM');
    t.same((await fork.find(SampleItem, {})).map((i) => i.label), ['one'], 'whose finds run on its own pool, bound to its org');
  });

  await quad.emFor(aa.id).transactional(async () => {
    const other = forkFor(quad.serviceOrm, bb.id);
    t.equal((other as QuadEntityManager).boundOrgId, bb.id, 'inside an org\'s transaction, a fork for another org is bound to that org');
    t.notOk(other.isInTransaction(), 'and outside the transaction around it');
    const bound = await quad.services.acrossOrgs('test.inside_org', async ({ em }) => (em as QuadEntityManager).boundOrgId);
    t.equal(bound, undefined, 'the cross-org path\'s EntityManager is bound to no org');
  });
});
