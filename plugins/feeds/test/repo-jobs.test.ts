// The repo_jobs parser (no database, no network) on a README written for the tests (fixtures/jobs-readme.md): the
// edge cases the real lists (real-lists.test.ts) do not show at their commits: bad rows of every kind, Markdown
// links, a struck-through closed link, "Closed" in the link cell, `;`-separated locations, columns in another order,
// escaped pipes, dates across a year end, bare addresses, hostile cells and tables; and tracking parameters that
// must not change a posting's key.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { cleanLink, jobItemKey, parseJobTable, type JobPosting } from '../repo-jobs.js';

const README = readFileSync(new URL('./fixtures/jobs-readme.md', import.meta.url), 'utf8');
/** Three days into the year, mid-afternoon UTC: "Dec 30" is last year, "Jan 04" (a list ahead of UTC) this one. */
const NOW = new Date('2026-01-03T15:00:00Z');

const day = (job: JobPosting) => job.posted.toISOString().slice(0, 10);
const summary = (jobs: JobPosting[]) => jobs.map((job) => `${job.company} | ${job.role} | ${day(job)}`);
const find = (jobs: JobPosting[], company: string, role: string) => {
  const job = jobs.find((j) => j.company === company && j.role === role);
  if (!job) throw new Error(`no job ${company} / ${role}`);
  return job;
};

t.test('every row when nothing is filtered (max_age_days 0, skip_closed false)', async (t) => {
  const { jobs, skipped, filtered } = parseJobTable(README, { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.same(summary(jobs), [
    'Stripe | Software Engineer, New Grad | 2026-01-02',
    'Stripe | Software Engineer, New Grad - Infrastructure | 2026-01-01',
    'Anduril | Software Engineer – New Grad | 2025-12-31',
    'Jane Street | Software Engineer – New Grad | 2025-12-30',
    'Datadog | Software Engineer I - Early Career | 2026-01-03',
    'Ramp | Software Engineer - New Grad | 2026-01-04',
    'Citadel | Software Engineer – 2026 New Grad | 2025-01-05',
    'Two Sigma | Quantitative Software Engineer | 2026-01-03',
    'Johnson & Johnson | Software Engineer, Technology Development Program | 2025-12-04',
    'Snowflake | Software Engineer - AI/ML | 2026-01-02',
  ], 'both job tables, in order; the legend and the careers-page tables are not job tables');
  t.same(skipped.map(({ line, reason }) => ({ line, reason })), [
    { line: 26, reason: 'no_link' }, // closed, and a closed row has only 🔒 where the link was
    { line: 31, reason: 'cell_count' },
    { line: 32, reason: 'no_company' }, // "↳" under the unreadable row is not given to Jane Street or Datadog
    { line: 33, reason: 'bad_date' },
    { line: 34, reason: 'no_link' },
    { line: 45, reason: 'duplicate' }, // Stripe again in the second table, with other utm parameters
  ]);
  t.match(skipped.find((s) => s.line === 31), { detail: 'expected 5 cells, found 4' });
  t.match(skipped.find((s) => s.line === 33), { detail: 'cannot read the date "TBD"' });
  t.match(skipped.find((s) => s.line === 45), { detail: 'same posting as line 24' });
  t.same(filtered, { closed: 0, tooOld: 0 });
  t.ok(jobs.every((job) => job.posted.getTime() % 86_400_000 === 0), 'every date is UTC midnight');
});

t.test('the feed defaults: max_age_days 2 and skip_closed', async (t) => {
  const { jobs, skipped, filtered } = parseJobTable(README, { now: NOW, maxAgeDays: 2, skipClosed: true });
  t.same(summary(jobs), [
    'Stripe | Software Engineer, New Grad | 2026-01-02',
    'Stripe | Software Engineer, New Grad - Infrastructure | 2026-01-01',
    'Datadog | Software Engineer I - Early Career | 2026-01-03',
    'Ramp | Software Engineer - New Grad | 2026-01-04',
    'Two Sigma | Quantitative Software Engineer | 2026-01-03',
    'Snowflake | Software Engineer - AI/ML | 2026-01-02',
  ]);
  t.same(filtered, { closed: 2, tooOld: 3 }, 'closed: Stripe Backend, Anduril; too old: Jane Street (4 days), Citadel (a year), J&J (1mo)');
  t.notOk(skipped.some((s) => s.line === 26), 'a closed row left out is not a bad row');
});

t.test('continuation rows take the company above', async (t) => {
  const { jobs } = parseJobTable(README, { now: NOW, maxAgeDays: 0, skipClosed: false });
  const infra = find(jobs, 'Stripe', 'Software Engineer, New Grad - Infrastructure');
  t.same(infra.locations, ['Remote in USA']);
  t.notOk(jobs.some((job) => job.company.includes('↳')));
});

t.test('flags', async (t) => {
  const { jobs } = parseJobTable(README, { now: NOW, maxAgeDays: 0, skipClosed: false });
  const flags = (job: JobPosting) => ({ closed: job.closed, noSponsorship: job.noSponsorship, citizenshipRequired: job.citizenshipRequired });
  t.same(flags(find(jobs, 'Stripe', 'Software Engineer, New Grad - Infrastructure')), { closed: false, noSponsorship: true, citizenshipRequired: false }, '🛂 in the role, and taken out of it');
  t.same(flags(find(jobs, 'Anduril', 'Software Engineer – New Grad')), { closed: true, noSponsorship: false, citizenshipRequired: true }, '"Closed" in the link cell; 🇺🇸 in the role');
  t.same(flags(find(jobs, 'Datadog', 'Software Engineer I - Early Career')), { closed: false, noSponsorship: false, citizenshipRequired: false });

  const closedRole = '| Company | Role | Location | Application/Link | Date Posted |\n|---|---|---|---|---|\n'
    + '| **Netflix** | Closed Captioning Software Engineer | Los Gatos, CA | <a href="https://jobs.netflix.com/jobs/31234">Apply</a> | Jan 02 |\n'
    + '| **Netflix** | Encoding Engineer | Los Gatos, CA | <a href="https://jobs.netflix.com/jobs/31235">Apply</a> 🔒 | Jan 02 |';
  const netflix = parseJobTable(closedRole, { now: NOW, maxAgeDays: 0, skipClosed: false }).jobs;
  t.same(netflix.map((job) => job.closed), [false, true], 'the word "Closed" counts only in the link cell; 🔒 anywhere');
});

t.test('which link is the application', async (t) => {
  const { jobs } = parseJobTable(README, { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.equal(find(jobs, 'Stripe', 'Software Engineer, New Grad').link, 'https://stripe.com/jobs/listing/software-engineer-new-grad/6081234', 'the employer link before the Simplify one, &amp; decoded, gh_src/utm/ref removed');
  t.equal(find(jobs, 'Jane Street', 'Software Engineer – New Grad').link, 'https://www.janestreet.com/join-jane-street/position/7123456002/', 'inside <div align="center">');
  t.equal(find(jobs, 'Datadog', 'Software Engineer I - Early Career').link, 'https://careers.datadoghq.com/detail/7345678/?gh_jid=7345678', 'a Markdown [Apply](url); the job id stays');
  t.equal(find(jobs, 'Anduril', 'Software Engineer – New Grad').link, 'https://boards.greenhouse.io/embed/job_app?token=7412345', 'a struck-through Markdown link');
  t.equal(find(jobs, 'Ramp', 'Software Engineer - New Grad').link, 'https://simplify.jobs/p/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', 'a Simplify link when it is the only one');
  t.equal(find(jobs, 'Two Sigma', 'Quantitative Software Engineer').link, 'https://careers.twosigma.com/careers/JobDetail/New-York/12345', 'source= removed');
});

t.test('locations', async (t) => {
  const { jobs } = parseJobTable(README, { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.same(find(jobs, 'Jane Street', 'Software Engineer – New Grad').locations, ['NYC', 'London, UK', 'Hong Kong'], '<details>: the summary "3 locations" is not one');
  t.same(find(jobs, 'Stripe', 'Software Engineer, New Grad').locations, ['Seattle, WA', 'SF', 'NYC'], '</br>-separated');
  t.same(find(jobs, 'Datadog', 'Software Engineer I - Early Career').locations, ['New York, NY', 'Boston, MA'], '"; "-separated, commas kept');
});

t.test('company names without markup', async (t) => {
  const { jobs } = parseJobTable(README, { now: NOW, maxAgeDays: 0, skipClosed: false });
  const companies = [...new Set(jobs.map((job) => job.company))];
  t.same(companies, ['Stripe', 'Anduril', 'Jane Street', 'Datadog', 'Ramp', 'Citadel', 'Two Sigma', 'Johnson & Johnson', 'Snowflake'],
    '**[Name](url)**, **Name** and <a><strong>Name</strong></a>, with &amp; decoded');
});

t.test('dates across the year end', async (t) => {
  const { jobs } = parseJobTable(README, { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.equal(day(find(jobs, 'Jane Street', 'Software Engineer – New Grad')), '2025-12-30', '"Dec 30" on Jan 3 is last year');
  t.equal(day(find(jobs, 'Ramp', 'Software Engineer - New Grad')), '2026-01-04', '"Jan 04" is within a day of slack');
  t.equal(day(find(jobs, 'Citadel', 'Software Engineer – 2026 New Grad')), '2025-01-05', '"Jan 05" would be in the future: a year ago');
  t.equal(day(find(jobs, 'Two Sigma', 'Quantitative Software Engineer')), '2026-01-03', '"0d" is today');
  t.equal(day(find(jobs, 'Johnson & Johnson', 'Software Engineer, Technology Development Program')), '2025-12-04', '"1mo" is 30 days');
  t.equal(day(find(jobs, 'Snowflake', 'Software Engineer - AI/ML')), '2026-01-02', 'an ISO date');

  const dates = (cells: string[]) => parseJobTable(
    ['| Company | Role | Location | Link | Posted |', '|-|-|-|-|-|', ...cells.map((c, i) => `| Co${i} | Engineer | NYC | [Apply](https://jobs.example.com/${i}) | ${c} |`)].join('\n'),
    { now: new Date('2024-03-01T00:30:00Z'), maxAgeDays: 0, skipClosed: false },
  );
  const { jobs: read, skipped } = dates(['Feb 29', 'Sep 23, 2023', 'March 2', '3w', 'Feb 30', 'Foo 12', 'yesterday']);
  t.same(read.map(day), ['2024-02-29', '2023-09-23', '2024-03-02', '2024-02-09'], 'a leap day, an explicit year, a long month name, weeks');
  t.same(skipped.map((s) => s.reason), ['bad_date', 'bad_date', 'bad_date'], 'Feb 30, an unknown month and words are not dates');
});

t.test('columns are found by header, not position', async (t) => {
  const markdown = [
    '| DATE POSTED | Salary | **Apply** | Location | Position | Company |',
    '| :---: | --- | --- | --- | --- | --- |',
    '| Jan 02 | $150k | [Apply](https://jobs.example.com/42?utm_source=list) | Austin, TX | Software Engineer \\| Platform | Dell |',
    '| Jan 02 | $150k | [Apply](https://jobs.example.com/43) | Austin, TX | Data Engineer | ↳ | |',
  ].join('\n');
  const { jobs, skipped } = parseJobTable(markdown, { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.same(jobs.map(({ company, role, locations, link }) => ({ company, role, locations, link })), [
    { company: 'Dell', role: 'Software Engineer | Platform', locations: ['Austin, TX'], link: 'https://jobs.example.com/42' },
    { company: 'Dell', role: 'Data Engineer', locations: ['Austin, TX'], link: 'https://jobs.example.com/43' },
  ], 'an escaped pipe stays in its cell; a trailing empty cell is tolerated');
  t.same(skipped, []);
});

t.test('a link cell may hold an HTML link, a Markdown link or a bare address', async (t) => {
  const readme = [
    '| Company | Role | Location | Application/Link | Date Posted |',
    '|---|---|---|---|---|',
    '| Acme | Bare | NYC | https://jobs.acme.example/1?utm_source=GHList&ref=Simplify | 0d |',
    '| Acme | Bare in a sentence | NYC | Apply at https://jobs.acme.example/2, today. | 0d |',
    '| Acme | Bare in HTML | NYC | <div align="center">https://jobs.acme.example/3</div> | 0d |',
    '| Acme | Label is an address | NYC | [https://simplify.jobs/p/4](https://jobs.acme.example/4) | 0d |',
    '| Acme | Markdown | NYC | [Apply](https://jobs.acme.example/5?ref=Simplify) | 0d |',
    '| Acme | HTML | NYC | <a href="https://jobs.acme.example/6?utm_source=Simplify&amp;ref=Simplify">Apply</a> | 0d |',
    '| Acme | Not a link | NYC | ftp://jobs.acme.example/7 www.acme.example/8 | 0d |',
  ].join('\n');
  const { jobs, skipped } = parseJobTable(readme, { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.same(jobs.map((job) => [job.role, job.link]), [
    ['Bare', 'https://jobs.acme.example/1'],
    ['Bare in a sentence', 'https://jobs.acme.example/2'],
    ['Bare in HTML', 'https://jobs.acme.example/3'],
    ['Label is an address', 'https://jobs.acme.example/4'],
    ['Markdown', 'https://jobs.acme.example/5'],
    ['HTML', 'https://jobs.acme.example/6'],
  ], 'a bare address is read (a sentence\'s comma dropped), tracking parameters removed; a Simplify address as a label loses to the employer\'s');
  t.same(skipped.map((s) => s.reason), ['no_link'], 'ftp: and a host without scheme are not links');
});

t.test('input that is not a job list gives nothing and never throws', async (t) => {
  for (const text of ['', 'no table here', '| Company | Role |\n|---|---|\n| A | B |', '| Company | Role | Location | Link | Date |\n|---|---|---|---|---|']) {
    t.match(parseJobTable(text, { now: NOW, maxAgeDays: 2, skipClosed: true }), { jobs: [], skipped: [], filtered: { closed: 0, tooOld: 0 }, rows: 0 });
  }
  t.same(['', '| Company | Role |\n|---|---|\n| A | B |', '| Company | Role | Location | Link | Date |\n|---|---|---|---|---|']
    .map((text) => parseJobTable(text, { now: NOW, maxAgeDays: 2, skipClosed: true }).jobTables), [0, 0, 1], 'a job table with no rows is still one');
  const orphan = parseJobTable('| Company | Role | Location | Link | Date |\n|---|---|---|---|---|\n| ↳ | SWE | NYC | [Apply](https://a.example/1) | Jan 02 |', { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.same(orphan.skipped.map((s) => s.reason), ['no_company'], 'a continuation at the top of a table');
  const afterRule = parseJobTable('Salary | benefits below\n---\n| Company | Role | Location | Link | Date |\n|---|---|---|---|---|\n| Acme | SWE | NYC | [Apply](https://a.example/1) | Jan 02 |', { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.same(afterRule.jobs.map((job) => job.company), ['Acme'], 'a line with a pipe over a --- rule is not a table that swallows the next one');
});

t.test('cleanLink removes tracking parameters only', async (t) => {
  t.equal(cleanLink('https://jobs.lever.co/acme/0c9d/apply?lever-source=Simplify&utm_source=Simplify'), 'https://jobs.lever.co/acme/0c9d/apply', 'no empty "?" left');
  t.equal(cleanLink('https://boards.greenhouse.io/embed/job_app?UTM_Source=x&token=7412345&ref=Simplify&for=acme'), 'https://boards.greenhouse.io/embed/job_app?token=7412345&for=acme', 'the rest keeps its order; names compared case-insensitively');
  t.equal(cleanLink('https://acme.wd5.myworkdayjobs.com/en-US/Careers/job/R-1?q=a%2Cb+c&source=LinkedIn#apply'), 'https://acme.wd5.myworkdayjobs.com/en-US/Careers/job/R-1?q=a%2Cb+c#apply', 'spelling and fragment kept');
  t.equal(cleanLink('https://careers.example.com/jobs?gh_jid=6283929&gh_src=abc&fbclid=1&gclid=2'), 'https://careers.example.com/jobs?gh_jid=6283929', 'gh_jid is the job, gh_src the click');
  t.equal(cleanLink('  https://example.com/job/1  '), 'https://example.com/job/1');
  const once = cleanLink('https://a.example/j?id=1&utm_medium=x&ref=y');
  t.equal(cleanLink(once), once, 'idempotent');
});

t.test('item keys', async (t) => {
  const posting = { company: 'Stripe', role: 'Software Engineer, New Grad', locations: ['Seattle, WA', 'SF'], link: 'https://stripe.com/jobs/listing/6081234?utm_source=Simplify&ref=Simplify' };
  const key = jobItemKey(posting);
  t.match(key, /^[0-9a-f]{32}$/);
  t.equal(jobItemKey({ ...posting, link: 'https://stripe.com/jobs/listing/6081234?utm_source=speedyapply&utm_campaign=jan' }), key, 'other tracking parameters, same posting');
  t.equal(jobItemKey({ ...posting, company: 'STRIPE', role: 'software engineer,  new grad', locations: ['seattle, wa', 'NYC'] }), key, 'case, spacing and later locations do not matter');
  t.not(jobItemKey({ ...posting, locations: ['SF'] }), key, 'another first location is another item');
  t.not(jobItemKey({ ...posting, link: 'https://stripe.com/jobs/listing/6081235' }), key, 'another link is another item');

  const { jobs } = parseJobTable(README, { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.equal(new Set(jobs.map((job) => job.key)).size, jobs.length, 'keys are unique in one parse');
  t.equal(find(jobs, 'Stripe', 'Software Engineer, New Grad').key, jobItemKey(find(jobs, 'Stripe', 'Software Engineer, New Grad')));
});

// Cells made to make a backtracking pattern rescan the rest of the cell from every opening: a README of such rows
// reads in linear time. A generous bound: the old patterns took over a second on each cell of this size (100 KB; a
// README may be 5 MB).
t.test('hostile cells read in linear time', async (t) => {
  const row = (link: string, location: string) => `| Acme | Engineer | ${location} | ${link} | Jan 02 |`;
  const hostile = [
    row('<a '.repeat(35_000), 'NYC'),
    row(`[x${'](http://x'.repeat(10_000)}`, 'NYC'),
    row('<a href="https://acme.example/apply">Apply</a>', '<details'.repeat(12_500)),
  ];
  const readme = `| Company | Role | Location | Application/Link | Date Posted |\n|---|---|---|---|---|\n${hostile.join('\n')}\n`;
  const started = performance.now();
  const { jobs } = parseJobTable(readme, { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.ok(performance.now() - started < 500, `read in ${Math.round(performance.now() - started)} ms`);
  t.same(jobs.map((job) => job.link), ['https://acme.example/apply'], 'only the row with a real link is a job');
});

// The same for HTML tables and bare addresses: tags never closed, cells and rows never closed, a run of dots after
// an address. Each input is about 1 MB; the bound is generous (each reads in tens of milliseconds).
t.test('hostile HTML reads in linear time', async (t) => {
  const header = '<table><tr><th>Company</th><th>Role</th><th>Location</th><th>Application</th><th>Age</th></tr>';
  const row = (link: string) => `<tr><td>Acme</td><td>Engineer</td><td>NYC</td><td>${link}</td><td>0d</td></tr>`;
  const inputs = {
    'unclosed tags': `${header}${'<td'.repeat(330_000)}`,
    'cells never closed': `${header}${'<tr><td>x'.repeat(110_000)}`,
    'tables never closed': '<table><tr><th>Company'.repeat(40_000),
    'lone <': `${header}${row('<a href="https://acme.example/1">Apply</a>')}${'<'.repeat(1_000_000)}`,
    'a run of dots': `${header}${row(`https://acme.example/${'.'.repeat(1_000_000)}x`)}`,
    'many tags, one cell': `${header}${row(`${'<b>'.repeat(300_000)}https://acme.example/2`)}`,
  };
  for (const [name, readme] of Object.entries(inputs)) {
    const started = performance.now();
    parseJobTable(readme, { now: NOW, maxAgeDays: 0, skipClosed: false });
    const ms = Math.round(performance.now() - started);
    t.ok(ms < 1_500, `${name}: read in ${ms} ms`);
  }
});
