// The feeds manifest boots with the core, off by default, and resolves the raw-file host's and each hackathon listing's base-URL setting:
// the real service unless the operator points it elsewhere; a setting that is not an http(s) URL stops the boot.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';

t.test('the listings\' base URLs: defaults, an override, a bad value refused', async (t) => {
  const quad = await startTestApp(t, { plugins: ['./plugins/feeds'], role: 'api', config: { FEEDS_LISTING_B_URL: 'http://127.0.0.2:8080' } });
  const feeds = quad.registry.get('feeds')!;
  t.match(feeds, { title: 'Feeds', category: 'Webhooks', defaultEnabled: false });
  t.same(quad.services.moduleSettings('feeds'), {
    FEEDS_REPO_RAW_URL: 'https://raw.githubusercontent.com',
    FEEDS_LISTING_A_URL: 'https://hackathons.hackclub.com', FEEDS_LISTING_B_URL: 'http://127.0.0.2:8080', FEEDS_LISTING_C_URL: 'https://www.hackalist.org',
  });
  await t.rejects(startTestApp(t, { plugins: ['./plugins/feeds'], role: 'api', config: { FEEDS_LISTING_A_URL: 'hackathons.example' } }), /FEEDS_LISTING_A_URL/);
});
