// The careers submodule: feed presets for the feeds module. Software internships and new-grad roles come from the job
// tables of SimplifyJobs' public lists (a repo_jobs feed reads the README's HTML or Markdown tables); hackathons from
// the three public listings (Hack Club, Euro-Hackathons, Hackalist). An org that subscribes sees these under the feeds
// module's presets and adds one with a webhook.
import { defineSubmodule } from 'quad-submodule-kit';

export default defineSubmodule({
  name: 'careers',
  title: 'Careers',
  description: 'Feed presets: new software internships, new-grad roles and upcoming hackathons, posted to a channel of the org\'s server by the feeds module.',
  readers: { feeds: ['feeds'] },
  feeds: [
    {
      key: 'swe-internships',
      title: 'Software internships',
      description: 'New software engineering internships from the community-kept list of SimplifyJobs (Summer 2026), posted within two days of being listed.',
      kind: 'repo_jobs',
      config: { repo: 'SimplifyJobs/Summer2026-Internships', branch: 'dev', path: 'README.md', label: 'Internship', skip_closed: true, max_age_days: 2 },
    },
    {
      key: 'new-grad',
      title: 'New-grad roles',
      description: 'New full-time roles for new graduates from the SimplifyJobs new-grad list, posted within two days of being listed.',
      kind: 'repo_jobs',
      config: { repo: 'SimplifyJobs/New-Grad-Positions', branch: 'dev', path: 'README.md', label: 'New grad role', skip_closed: true, max_age_days: 2 },
    },
    {
      key: 'hackathons',
      title: 'Hackathons',
      description: 'Hackathons starting in the next 60 days, from the public listings of Hack Club, Euro-Hackathons and Hackalist.',
      kind: 'hackathons',
      config: { sources: ['listing_a', 'listing_b', 'listing_c'], min_days_ahead: 0, max_days_ahead: 60 },
    },
  ],
});
