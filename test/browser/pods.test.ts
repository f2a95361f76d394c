// The Pods page in a real browser, against the fake provider (and, for files, a real sshd acting as the pod). An
// officer sees the provider's refusal of a create in its own words, then creates a GPU pod and sees it RUNNING,
// stops it and sees EXITED; a CPU pod is created and terminated after a confirm. On one pod's page: why connected
// sessions are unknown and files unavailable while it is stopped; it becomes public and allows a member found by
// search; a session typed on the officer's clock (Asia/Kolkata, +05:30) reaches the API as that instant and is
// deleted; once started, its files are listed, a folder opened, a file read and deleted after a confirm. A deployment
// without PODHOST_POD_IMAGE: the page says so, a create without an image is refused with what to set.
import t from 'tap';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { servePod, startFakeHostprov } from '@quad/core/testing';
import { startBrowserWorld } from './harness.js';

const API_KEY = 'hp-browser-key';

t.test('the Pods page', async (t) => {
  // Until the pod's sshd runs, every pod's SSH address is a closed port on loopback: SSH fails at once.
  const fake = await startFakeHostprov({ apiKey: API_KEY, ssh: { host: '127.0.0.1', port: 9 } });
  t.teardown(() => fake.close());
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/pods'], orgModules: { podhost: true },
    config: { SECRETS_KEY: [Buffer.alloc(32, 9).toString('base64')], HOSTPROV_API_URL: fake.url, PODHOST_POD_IMAGE: 'example/podhost:1' },
  });
  const { quad, org, member } = world;
  await quad.services.secrets.set(quad.emFor(org.id), org.id, 'hostprov_api_key', API_KEY);
  const sql = async <T>(query: string, params: unknown[] = []) => (await quad.orm.em.fork().getConnection().execute(query, params as never[])) as T[];
  const podRow = async (name: string) => (await sql<{ pod_id: string; is_public: boolean; allowed_users: string[] }>('select * from compute_pods where name = ?', [name]))[0];

  const page = await world.open();
  // The officer's clock: sessions are typed on it (CDP keeps the override while the session is attached).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'Asia/Kolkata' });
  await world.signIn(page);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Pods' }).click();
  await page.getByRole('heading', { level: 1, name: 'Pods' }).waitFor();
  const pods = page.getByRole('table', { name: 'Pods' });
  const podRowOnPage = (name: string) => pods.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
  const status = (name: string, value: string) => podRowOnPage(name).getByTestId('pod-status').filter({ hasText: new RegExp(`^${value}$`) }).waitFor();
  const form = page.getByRole('form', { name: 'Create a pod' });

  await t.test('a refused create shows the provider\'s reason; then the GPU pod is created and RUNNING', async (t) => {
    await page.getByText('No pods yet').waitFor();
    await form.getByLabel('Name', { exact: true }).fill('training');
    await form.getByLabel('GPU type').fill('NVIDIA RTX A4000');
    await form.getByLabel('Environment').fill('HF_TOKEN=hf_secret');
    // With no pod yet the page asks the provider nothing else, so the create is the request refused.
    fake.refuseNext(400, 'no capacity in this region');
    await form.getByRole('button', { name: 'Create pod' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Pod not created' });
    await refused.waitFor();
    t.match(await refused.textContent(), /no capacity in this region/, 'the provider\'s words');
    t.equal(await podRowOnPage('training').count(), 0);

    await form.getByRole('button', { name: 'Create pod' }).click();
    await page.getByRole('status').filter({ hasText: 'Pod training created (RUNNING).' }).waitFor();
    await status('training', 'RUNNING');
    t.match(await podRowOnPage('training').textContent(), /GPU · 1 × NVIDIA RTX A4000.*example\/podhost:1.*Officers only/);
    t.equal(await refused.count(), 0, 'the refusal is gone');
    const sent = fake.requests.filter((r) => r.method === 'POST' && /\/pods$/.test(r.path)).at(-1)!;
    t.match(sent.body, { name: 'training', env: { HF_TOKEN: 'hf_secret' } }, 'the form\'s fields reached the provider');
    t.same(world.problems(page), []);
  });

  await t.test('stop: the status changes', async (t) => {
    await page.getByRole('button', { name: 'Stop training' }).click();
    await status('training', 'EXITED');
    t.ok(await page.getByRole('button', { name: 'Start training' }).isVisible(), 'a stopped pod can be started');
  });

  await t.test('a CPU pod allowing a member is created, then terminated after a confirm', async (t) => {
    await form.getByLabel('CPU pod').check();
    await form.getByLabel('Name', { exact: true }).fill('cpu-box');
    await form.getByLabel('CPU flavor').fill('cpu3c');
    await form.getByLabel('vCPUs').selectOption('4');
    await form.getByLabel('Find a member').fill('bo');
    await form.getByRole('button', { name: 'Search' }).click();
    await form.getByRole('button', { name: 'Allow bob' }).click();
    await form.getByRole('button', { name: 'Remove bob' }).waitFor();
    await form.getByRole('button', { name: 'Create pod' }).click();
    await status('cpu-box', 'RUNNING');
    t.match(await podRowOnPage('cpu-box').textContent(), /CPU · cpu3c, 4 vCPU.*1 member/);
    const { pod_id: podId, allowed_users } = await podRow('cpu-box');
    t.same(allowed_users, [member.id], 'the member found by search');
    t.equal(await form.getByRole('list', { name: 'Members found' }).count(), 0, 'a new form: the search is cleared');
    await world.screenshot(page, 'pods-list');

    await page.getByRole('button', { name: 'Terminate cpu-box' }).click();
    const dialog = page.getByRole('dialog', { name: 'Terminate cpu-box?' });
    await dialog.getByRole('button', { name: 'Terminate pod' }).click();
    await podRowOnPage('cpu-box').waitFor({ state: 'detached' });
    t.notOk(fake.pods.some((p) => p.id === podId), 'the provider no longer has it');
    t.equal(await podRow('cpu-box'), undefined, 'nor the database');
  });

  await t.test('the org\'s default image', async (t) => {
    const image = page.getByRole('form', { name: 'Default image' });
    await image.getByLabel('Org\'s pod image').fill('acm/pod:2');
    await image.getByRole('button', { name: 'Save image' }).click();
    await page.getByRole('status').filter({ hasText: 'New pods use acm/pod:2.' }).waitFor();
    await form.getByText('Empty: acm/pod:2').waitFor();
    await image.getByRole('button', { name: 'Use the deployment\'s' }).click();
    await page.getByRole('status').filter({ hasText: 'New pods use the deployment\'s example/podhost:1.' }).waitFor();
    t.equal(await image.getByLabel('Org\'s pod image').inputValue(), '', 'cleared');
  });

  await t.test('a stopped pod: connected sessions unknown and why, no files', async (t) => {
    await podRowOnPage('training').getByRole('link', { name: 'training' }).click();
    await page.getByRole('heading', { level: 1, name: 'Pod training' }).waitFor();
    await page.getByRole('tab', { name: 'Connections' }).click();
    const unknown = page.getByRole('status').filter({ hasText: 'Not known:' });
    await unknown.waitFor();
    t.match(await unknown.textContent(), /The pod is not running \(EXITED\)/);
    await page.getByText('Nobody has connected yet').waitFor();
    await page.getByRole('tab', { name: 'Files' }).click();
    await page.getByText('The pod is not running').waitFor();
  });

  await t.test('access: public, and a member allowed through search, then removed', async (t) => {
    await page.getByRole('tab', { name: 'Access' }).click();
    // A click, not check(): the box shows the server's answer, so it turns on only when the change is saved.
    await page.getByLabel('Public: any member of the org\'s server may use it').click();
    await page.getByRole('heading', { name: /Allowed members \(not needed while the pod is public\)/ }).waitFor();
    t.equal((await podRow('training')).is_public, true);

    await page.getByLabel('Find a member').fill('bo');
    await page.getByLabel('Find a member').press('Enter');
    await page.getByRole('list', { name: 'Members found' }).getByRole('button', { name: 'Allow bob' }).click();
    const allowed = page.getByRole('table', { name: 'Allowed members' });
    await allowed.getByRole('row').filter({ hasText: member.id }).waitFor();
    t.match(await allowed.getByRole('row').nth(1).textContent(), /^bob/, 'by name');
    t.same((await podRow('training')).allowed_users, [member.id]);

    await allowed.getByRole('button', { name: 'Remove bob' }).click();
    await page.getByText('No member is allowed by name').waitFor();
    t.same((await podRow('training')).allowed_users, []);
    t.same(world.problems(page), []);
  });

  await t.test('a session typed on the officer\'s clock, then deleted', async (t) => {
    await page.getByRole('tab', { name: 'Sessions' }).click();
    const add = page.getByRole('form', { name: 'Add a session' });
    await add.getByLabel('Title').fill('Workshop');
    await add.getByLabel('Start', { exact: true }).fill('2030-06-01T18:00');
    await add.getByLabel('Stop', { exact: true }).fill('2030-06-01T20:30');
    t.match(await add.textContent(), /Times on your clock \((Asia\/Calcutta|Asia\/Kolkata)\)/);
    await add.getByRole('button', { name: 'Add session' }).click();
    const sessions = page.getByRole('table', { name: 'Sessions' });
    await sessions.getByRole('row').filter({ hasText: 'Workshop' }).waitFor();
    const [stored] = await sql<{ start_at: Date; stop_at: Date }>('select start_at, stop_at from compute_sessions where title = ?', ['Workshop']);
    t.equal(new Date(stored.start_at).toISOString(), '2030-06-01T12:30:00.000Z', '18:00 at +05:30');
    t.equal(new Date(stored.stop_at).toISOString(), '2030-06-01T15:00:00.000Z');

    await page.getByRole('button', { name: 'Delete session Workshop' }).click();
    await page.getByRole('dialog', { name: 'Delete session Workshop?' }).getByRole('button', { name: 'Delete session' }).click();
    await page.getByText('No sessions').waitFor();
    t.equal((await sql('select id from compute_sessions where deleted_at is null')).length, 0);
  });

  await t.test('a running pod\'s files: open a folder, read a file, delete it after a confirm', async (t) => {
    await page.getByRole('button', { name: 'Start training' }).click();
    await page.getByRole('button', { name: 'Stop training' }).waitFor();
    const { pod_id: podId } = await podRow('training');
    const sshd = await servePod(fake, podId);
    t.teardown(() => sshd.close());
    const root = join(sshd.dir, 'files');
    await mkdir(join(root, 'notes'), { recursive: true });
    await writeFile(join(root, 'notes', 'hello.txt'), 'hello from the pod\n');

    await page.getByRole('tab', { name: 'Files' }).click();
    await page.getByLabel('Folder', { exact: true }).fill(root);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByRole('button', { name: 'Open folder notes' }).click();
    const listing = page.getByRole('table', { name: `Files in ${join(root, 'notes')}` });
    await listing.getByRole('button', { name: 'Read hello.txt' }).click();
    await page.getByRole('region', { name: `Reading ${join(root, 'notes', 'hello.txt')}` }).getByText('hello from the pod').waitFor();
    await world.screenshot(page, 'pods-files');

    await listing.getByRole('button', { name: 'Delete hello.txt' }).click();
    await page.getByRole('dialog', { name: 'Delete hello.txt?' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('This folder is empty').waitFor();
    await t.rejects(access(join(root, 'notes', 'hello.txt')), 'gone from the pod');

    await page.getByRole('tab', { name: 'Connections' }).click();
    await page.getByText('Nobody is connected').waitFor();
    await world.screenshot(page, 'pods-detail');
    t.same(world.problems(page), []);
  });
});

t.test('the Pods page when the deployment sets no pod image', async (t) => {
  const fake = await startFakeHostprov({ apiKey: API_KEY });
  t.teardown(() => fake.close());
  const world = await startBrowserWorld(t, {
    plugins: ['./plugins/pods'], orgModules: { podhost: true },
    // PODHOST_POD_IMAGE has no default: unset, as a deployment that built no image has it.
    config: { SECRETS_KEY: [Buffer.alloc(32, 9).toString('base64')], HOSTPROV_API_URL: fake.url, PODHOST_POD_IMAGE: undefined },
  });
  const { quad, org } = world;
  await quad.services.secrets.set(quad.emFor(org.id), org.id, 'hostprov_api_key', API_KEY);
  const page = await world.open();
  await world.signIn(page);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Pods' }).click();
  await page.getByRole('heading', { level: 1, name: 'Pods' }).waitFor();

  const note = page.getByRole('status', { name: 'Pod image' });
  await note.waitFor();
  t.match(await note.textContent(), /^This deployment sets no pod image \(its PODHOST_POD_IMAGE is not set\)\. Set the org's pod image below, or name an image in each create: without one a pod cannot be created\./);
  const form = page.getByRole('form', { name: 'Create a pod' });
  await form.getByText('Required: neither the org nor the deployment sets a default image').waitFor();

  await form.getByLabel('GPU type').fill('NVIDIA RTX A4000');
  await form.getByRole('button', { name: 'Create pod' }).click();
  const refused = page.getByRole('alert').filter({ hasText: 'Pod not created' });
  await refused.waitFor();
  t.match(await refused.textContent(), /No pod image: .*PODHOST_POD_IMAGE/, 'the server says what to set');
  t.equal(fake.requests.filter((r) => r.method === 'POST' && /\/pods$/.test(r.path)).length, 0, 'the provider was not asked');

  const image = page.getByRole('form', { name: 'Default image' });
  await image.getByText('none, as the deployment sets no image').waitFor();
  await image.getByLabel('Org\'s pod image').fill('acm/pod:2');
  await image.getByRole('button', { name: 'Save image' }).click();
  await page.getByRole('status').filter({ hasText: 'New pods use acm/pod:2.' }).waitFor();
  await note.filter({ hasText: 'New pods use the org\'s image, acm/pod:2.' }).waitFor();
  await form.getByText('Empty: acm/pod:2').waitFor();
  await world.screenshot(page, 'pods-no-deployment-image');
  await image.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('status').filter({ hasText: 'No default image: each create must name one.' }).waitFor();
  t.same(world.problems(page), []);
});
