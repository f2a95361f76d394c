// Branding and general settings: the spec's validation, removal with "" or null, partial updates.
import t from 'tap';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

t.test('branding and settings', async (t) => {
  const world = await startSignInWorld(t);
  const { quad } = world;
  const token = (await signInOfficer(world, world.officer.id)).access_token;
  const put = (url: string, payload: unknown) => quad.api.inject({ method: 'PUT', url, headers: bearer(token), payload: payload as object });

  t.test('no branding at first', async (t) => {
    const res = await quad.api.inject({ url: '/api/dashboard/acm/branding', headers: bearer(token) });
    t.same(res.json(), { logo_url: null, accent_color: null, website_url: null });
  });

  t.test('set, partial update, remove', async (t) => {
    const set = await put('/api/dashboard/acm/branding', { logo_url: 'https://cdn.example.org/logo.png', accent_color: '#1a2b3c', website_url: 'https://acm.example.org' });
    t.equal(set.statusCode, 200);
    t.same(set.json(), { logo_url: 'https://cdn.example.org/logo.png', accent_color: '#1A2B3C', website_url: 'https://acm.example.org/' });
    const partial = await put('/api/dashboard/acm/branding', { accent_color: '#000000' });
    t.same(partial.json(), { logo_url: 'https://cdn.example.org/logo.png', accent_color: '#000000', website_url: 'https://acm.example.org/' }, 'fields left out stay');
    const removed = await put('/api/dashboard/acm/branding', { logo_url: '', website_url: null });
    t.same(removed.json(), { logo_url: null, accent_color: '#000000', website_url: null }, 'empty string and null remove');
    t.same((await quad.api.inject({ url: '/api/dashboard/acm/branding', headers: bearer(token) })).json(), removed.json(), 'kept');
  });

  t.test('each invalid value is 400 and changes nothing', async (t) => {
    const before = (await quad.api.inject({ url: '/api/dashboard/acm/branding', headers: bearer(token) })).json();
    const cases: [object, string][] = [
      [{ logo_url: 'http://cdn.example.org/logo.png' }, 'invalid_url'],
      [{ logo_url: 'javascript:alert(1)' }, 'invalid_url'],
      [{ website_url: 'https://user:pw@example.org' }, 'invalid_url'],
      [{ website_url: 'not a url' }, 'invalid_url'],
      [{ accent_color: 'red' }, 'invalid_color'],
      [{ accent_color: '#12345' }, 'invalid_color'],
      [{ accent_color: '#GGGGGG' }, 'invalid_color'],
      [{ logo_url: 42 }, 'validation'],
      [{ logo_url: ['https://x.example'] }, 'validation'],
      [{ banner: 'x' }, 'validation'],
    ];
    for (const [payload, reason] of cases) {
      const res = await put('/api/dashboard/acm/branding', payload);
      t.equal(res.statusCode, 400, JSON.stringify(payload));
      t.equal(res.json().reason, reason, JSON.stringify(payload));
    }
    t.same((await quad.api.inject({ url: '/api/dashboard/acm/branding', headers: bearer(token) })).json(), before);
  });

  t.test('the org config store keeps one value per key', async (t) => {
    const em = quad.orm.em.fork();
    await quad.services.orgConfig.set(em, world.org.id, 'points.leaderboard_size', 25);
    t.equal(await quad.services.orgConfig.get(em, world.org.id, 'points.leaderboard_size'), 25);
    t.same(await quad.services.orgConfig.get(em, world.org.id, 'branding'), { logo_url: null, accent_color: '#000000', website_url: null }, 'other keys untouched');
    await quad.services.orgConfig.set(em, world.org.id, 'points.leaderboard_size', null);
    t.equal(await quad.services.orgConfig.get(em, world.org.id, 'points.leaderboard_size'), undefined, 'null removes the key');
  });

  t.test('general settings', async (t) => {
    const res = await put('/api/dashboard/acm/settings', { description: 'We build things', points_per_message: 3, points_cooldown_seconds: 120 });
    t.equal(res.statusCode, 200);
    t.match(res.json(), { prefix: 'acm', description: 'We build things', points_per_message: 3, points_cooldown_seconds: 120, guild_id: world.guildId, officer_role_id: world.officerRoleId });
    t.equal((await quad.api.inject({ url: '/api/dashboard/acm/settings', headers: bearer(token) })).json().points_per_message, 3);
    for (const payload of [{}, { points_per_message: -1 }, { points_cooldown_seconds: 1.5 }, { name: '' }, { prefix: 'other' }]) {
      t.equal((await put('/api/dashboard/acm/settings', payload)).statusCode, 400, JSON.stringify(payload));
    }
    const [audit] = await quad.orm.em.fork().getConnection().execute("select details from audit_log where action = 'org.settings'");
    t.same(audit.details, { description: 'We build things', points_per_message: 3, points_cooldown_seconds: 120 });
  });
});
