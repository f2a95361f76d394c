// The repo_jobs parser on the job lists as they really are (fixtures/SOURCES.md says where and when each was read):
// SimplifyJobs' Summer 2026 internships as HTML tables (an excerpt of the README) and, earlier, as Markdown pipe
// tables with an Age column; SimplifyJobs' new-grad list as a pipe table with "Mon DD" dates; and the HTML that the
// new-grad list's generator writes today. Each count of open rows is checked against a count made another way: the
// README's lines, read with plain string tests (the generator writes one HTML cell or one pipe-table row a line).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { formatProblem, jobItemKey, parseJobTable, type JobPosting, type ParseOptions } from '../repo-jobs.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const HTML_2026 = fixture('summer2026-internships-html-excerpt.md');
const PIPE_2026 = fixture('summer2026-internships-2025-08-12.md');
const NEW_GRAD_2024 = fixture('new-grad-positions-2024-10-25.md');
const NEW_GRAD_HTML = fixture('new-grad-html-generator-form.md');

/** Ages ("0d", "1mo") count back from `now`, whatever it is; dates without a year ("Oct 24") need a pinned one. */
const NOW = new Date('2026-01-03T15:00:00Z');
const ALL: ParseOptions = { now: NOW, maxAgeDays: 0, skipClosed: true };

const day = (job: JobPosting) => job.posted.toISOString().slice(0, 10);
const find = (jobs: JobPosting[], company: string, role: string) => {
  const job = jobs.find((j) => j.company === company && j.role === role);
  if (!job) throw new Error(`no job ${company} / ${role}`);
  return job;
};

/** HTML rows, counted from the lines: the generator writes each `<td>` on its own line, five to a row. */
function htmlRowCount(readme: string): { rows: number; closed: number; ages: string[] } {
  const cells = readme.split('\n').filter((line) => line.startsWith('<td>'));
  const ages = cells.filter((_, i) => i % 5 === 4).map((cell) => cell.slice('<td>'.length, -'</td>'.length));
  return { rows: cells.length / 5, closed: cells.filter((_, i) => i % 5 === 3 && cell3Closed(cells[i]!)).length, ages };
}
const cell3Closed = (cell: string) => cell.includes('🔒');

/** Pipe-table rows, counted from the lines: a line starting "| " that is neither a header nor a delimiter. */
function pipeRowCount(readme: string): { rows: number; closed: number; lastCells: string[] } {
  const rows = readme.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Company') && !line.startsWith('| ---'));
  return {
    rows: rows.length,
    closed: rows.filter((row) => row.includes('🔒')).length,
    lastCells: rows.filter((row) => !row.includes('🔒')).map((row) => row.slice(row.lastIndexOf('|', row.length - 2) + 1, -1).trim()),
  };
}

t.test('Summer 2026 internships, HTML tables: every open row read', async (t) => {
  const counted = htmlRowCount(HTML_2026);
  t.same([counted.rows, counted.closed], [48, 0], 'by the lines: 48 rows, none closed (this list keeps closed roles in README-Inactive.md)');
  const { jobs, skipped, filtered, jobTables, rows } = parseJobTable(HTML_2026, ALL);
  t.equal(jobs.length, counted.rows - counted.closed, 'every open row is a job');
  t.same([skipped, filtered, jobTables, rows], [[], { closed: 0, tooOld: 0 }, 2, 48]);

  t.same(jobs[0], {
    company: 'CAE', role: 'Junior Software Developer', locations: ['Halifax Regional Municipality, NS, Canada'],
    link: 'https://cae.wd3.myworkdayjobs.com/career/job/Halifax/C-DS-900-Junior-Software-Developer-Intern_120426',
    posted: new Date('2026-01-03T00:00:00Z'), closed: false, noSponsorship: false, citizenshipRequired: false,
    key: jobItemKey({ company: 'CAE', role: 'Junior Software Developer', locations: ['Halifax Regional Municipality, NS, Canada'], link: 'https://cae.wd3.myworkdayjobs.com/career/job/Halifax/C-DS-900-Junior-Software-Developer-Intern_120426?utm_source=Simplify&ref=Simplify' }),
  }, 'company from the link inside <strong>; the apply link, not Simplify\'s, without utm_source/ref; "0d" is today; the key of the spec');
  t.match(jobs[1], { company: 'CAE', role: 'Integration Specialist Intern/Co-op', locations: ['Tampa, FL'] }, '"↳" repeats the company above');
  const ensora = find(jobs, 'Ensora Health', 'Software Engineer Intern');
  t.equal(ensora.locations.length, 35, '<details>: the 35 locations after the summary, split on <br>');
  t.same([ensora.locations[0], ensora.locations[34]], ['Concord, NH', 'Radcliff, KY']);
  t.match(find(jobs, 'Nelnet', 'Intern – IT Software Engineer - R&D Innovation Focus'), { link: 'https://nelnet.wd1.myworkdayjobs.com/MyNelnet/job/Lincoln-NE/Intern---IT-Software-Engineer---R-D-Innovation-Focus_R22342' }, 'a raw & in a role');
  t.match(find(jobs, 'Microsoft', 'Quantitative Researcher Intern'), {
    link: 'https://apply.careers.microsoft.com/careers/job/1970393556752645', posted: new Date('2025-12-24T00:00:00Z'),
  }, '🔥 before the company and 🎓 after the role are markers, not names; "10d"');
  t.same(find(jobs, 'Royal Bank of Canada', 'Relationship Manager Business Markets Intern').locations,
    ['Pointe-Claire, QC, Canada', 'Brossard, QC, Canada', 'Longueuil, QC, Canada'], 'three locations split by <br>, no <details>');
  t.match(find(jobs, 'Amazon', 'Robotics - Hardware Development Engineer Intern/Co-op - Multiple Teams'), {
    locations: ['Boston, MA', 'Seattle, WA', 'Wakefield, MA', 'Westborough, MA'], posted: new Date('2025-12-04T00:00:00Z'),
  }, '"1mo" is 30 days');
  t.match(find(jobs, 'Keysight Technologies', 'Industrial Internship - 6 - Months'), { link: 'https://jobs.keysight.com/jobs/51149?lang=en-us&icims=1' }, 'the board\'s own parameters stay');
  t.ok(find(jobs, 'Geotab', 'Embedded Developer Intern - Oracle - Summer/May 2026\',\'Months'), 'a role as oddly written as the list has it');
  t.match(jobs.find((job) => job.company === 'Fresenius Kabi'), { role: 'Intern Medtech Systems Engineering' }, 'the second table is read too');
  t.equal(new Set(jobs.map((job) => job.key)).size, jobs.length, 'one key per posting');

  const recent = parseJobTable(HTML_2026, { now: NOW, maxAgeDays: 2, skipClosed: true });
  const young = counted.ages.filter((age) => ['0d', '1d', '2d'].includes(age)).length;
  t.equal(recent.jobs.length, young, `max_age_days 2 keeps the ${young} rows aged 0d to 2d`);
  t.equal(recent.filtered.tooOld, counted.rows - young);
});

t.test('Summer 2026 internships, August 2025, pipe tables with an Age column', async (t) => {
  const counted = pipeRowCount(PIPE_2026);
  t.same([counted.rows, counted.closed], [357, 30]);
  const { jobs, skipped, filtered, jobTables } = parseJobTable(PIPE_2026, ALL);
  t.equal(jobs.length, counted.rows - counted.closed, '327 open rows, in 8 tables (4 of them of inactive roles in <details>)');
  t.same([skipped, filtered.closed, jobTables], [[], 30, 8]);
  t.same(jobs[0], {
    company: 'Anduril Industries', role: 'Software Engineer Intern',
    locations: ['Atlanta, GA', 'Boston, MA', 'Costa Mesa, CA', 'Irvine, CA', 'Reston, VA', 'Seattle, WA'],
    link: 'https://job-boards.greenhouse.io/andurilindustries/jobs/4807506007?gh_jid=4807506007',
    posted: new Date('2026-01-03T00:00:00Z'), closed: false, noSponsorship: true, citizenshipRequired: false,
    key: jobItemKey({ company: 'Anduril Industries', role: 'Software Engineer Intern', locations: ['Atlanta, GA'], link: 'https://job-boards.greenhouse.io/andurilindustries/jobs/4807506007?gh_jid=4807506007' }),
  }, 'a plain company; 🛂 out of the role and into the flag; <details> split on </br>; gh_src= (empty) removed, gh_jid kept');
  t.match(find(jobs, 'Notion', 'Software Engineer, Mobile'), { locations: ['San Francisco, CA', 'New York, NY'] }, '"↳" in a pipe table');

  const withClosed = parseJobTable(PIPE_2026, { ...ALL, skipClosed: false });
  t.equal(withClosed.skipped.filter((row) => row.reason === 'no_link').length, 30, 'skip_closed false: closed rows have only 🔒 where the link was');
  const ages = counted.lastCells;
  const recent = parseJobTable(PIPE_2026, { now: NOW, maxAgeDays: 2, skipClosed: true });
  t.equal(recent.jobs.length, ages.filter((age) => ['0d', '1d', '2d'].includes(age)).length, 'max_age_days 2: the 7 rows aged 0d');
});

t.test('New-grad positions, October 2024, a pipe table with "Mon DD" dates (now pinned to the commit\'s day)', async (t) => {
  const now = new Date('2024-10-25T12:00:00Z');
  const counted = pipeRowCount(NEW_GRAD_2024);
  t.same([counted.rows, counted.closed], [331, 196]);
  const { jobs, skipped, filtered } = parseJobTable(NEW_GRAD_2024, { now, maxAgeDays: 0, skipClosed: true });
  t.equal(jobs.length, counted.rows - counted.closed, '135 open rows');
  t.same([skipped, filtered.closed], [[], 196]);
  t.same(jobs[0], {
    company: 'DoorDash', role: 'Software Engineer I - Entry-Level - Graduation Date: Fall 2024-Summer 2025',
    locations: ['Seattle, WA', 'SF', 'LA', 'NYC', 'Sunnyvale, CA'], link: 'https://boards.greenhouse.io/doordashusa/jobs/6330949',
    posted: new Date('2024-10-24T00:00:00Z'), closed: false, noSponsorship: false, citizenshipRequired: false,
    key: jobItemKey({ company: 'DoorDash', role: 'Software Engineer I - Entry-Level - Graduation Date: Fall 2024-Summer 2025', locations: ['Seattle, WA'], link: 'https://boards.greenhouse.io/doordashusa/jobs/6330949' }),
  }, '**[DoorDash](…)** and <details><summary>**5 locations**</summary>');
  t.equal(day(find(jobs, 'Squarespace', 'Software Engineer – New Graduate - Java')), '2024-10-24');
  t.equal(find(jobs, 'Squarespace', 'Software Engineer – New Graduate - Java').link, 'http://www.squarespace.com/about/careers?gh_jid=6283547');
  const recent = parseJobTable(NEW_GRAD_2024, { now, maxAgeDays: 2, skipClosed: true });
  const expected = counted.lastCells.filter((date) => ['Oct 23', 'Oct 24', 'Oct 25'].includes(date)).length;
  t.equal(recent.jobs.length, expected, `max_age_days 2 on Oct 25: the ${expected} open rows of Oct 23 to 25`);
});

t.test('New-grad positions in the HTML its generator writes now', async (t) => {
  const { jobs, skipped, filtered } = parseJobTable(NEW_GRAD_HTML, { now: NOW, maxAgeDays: 0, skipClosed: false });
  t.same(jobs.map((job) => `${job.company} | ${job.role} | ${job.locations.join(' / ')} | ${job.link} | ${day(job)}`), [
    'Stripe | Software Engineer, New Grad | Seattle, WA / SF / NYC / Chicago, IL | https://stripe.example/jobs/listing/6081234 | 2026-01-03',
    'Stripe | Software Engineer, New Grad - Infrastructure | Remote in USA | https://stripe.example/jobs/listing/6081240?gh_jid=6081240 | 2026-01-03',
    'Contoso Quant | Quantitative Researcher – PhD New Grad | NYC | https://careers.contoso.example/jobs/77 | 2025-12-29',
    'Fabrikam & Sons | Junior Data Engineer | Austin, TX | https://fabrikam.example/careers/data-engineer | 2025-11-04',
  ], '🔥 inside the company link, <th style=…>, <strong>Company</strong> without a link, the one-button cell, "2mo"; the Wayback "Archived" link is never the application');
  t.equal(find(jobs, 'Stripe', 'Software Engineer, New Grad').noSponsorship, true);
  t.same(skipped.map((row) => row.reason), ['no_link'], 'the closed role has only its archive link: with skip_closed false it has no application');
  t.same(filtered, { closed: 0, tooOld: 0 });
  t.same(parseJobTable(NEW_GRAD_HTML, { now: NOW, maxAgeDays: 0, skipClosed: true }).filtered, { closed: 1, tooOld: 0 });
});

t.test('a list whose format changed is a problem, with what was found', async (t) => {
  t.equal(formatProblem(parseJobTable(HTML_2026, ALL)), null);
  t.equal(formatProblem(parseJobTable(PIPE_2026, ALL)), null);

  const renamed = parseJobTable(HTML_2026.replaceAll('<th>Age</th>', '<th>Days ago</th>'), ALL);
  t.same([renamed.jobs.length, renamed.jobTables], [0, 0]);
  t.equal(formatProblem(renamed), 'has no job table (a Markdown or HTML table with the columns Company, Role, Location, Application/Link and Date Posted or Age); '
    + 'the tables found have the columns "Company, Role, Location, Application, Days ago"; "Company, Role, Location, Application, Days ago": the list\'s format may have changed');
  t.match(formatProblem(parseJobTable('# Internships\n\nMoved to https://example.com', ALL)), /no table was found/);

  const unreadable = parseJobTable(HTML_2026.replaceAll('<td>0d</td>', '<td>today</td>').replaceAll('<td>1mo</td>', '<td>a while ago</td>'), ALL);
  t.equal(unreadable.skipped.length, 34);
  t.match(formatProblem(unreadable), /^could not read 34 of 48 rows \(line \d+: bad_date, cannot read the date "today"\)/, 'rows that no longer read');
  t.equal(formatProblem(parseJobTable(HTML_2026.replaceAll('<td>0d</td>', '<td>today</td>'), ALL)), null, '21 of 48 unreadable: under half, a note');
  const fewBad = parseJobTable(HTML_2026.replace('<td>0d</td>', '<td>today</td>'), ALL);
  t.equal(formatProblem(fewBad), null, 'one odd row is a note, not a failure');
});
