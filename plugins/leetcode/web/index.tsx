// The LeetCode module's dashboard entry, built into web/dist/index.js and loaded by the dashboard at run time. React,
// @tanstack/react-query and @quad/web/sdk are the dashboard's own (its import map). The LeetCode page
// (/dashboard/leetcode; the old settings#leetcode opens it): settings, today's problem and its solvers with Post now,
// and the linked members; and the Overview card. Routes: routes.ts (README "Routes").
import { OverviewSection, Page, type PageProps } from '@quad/web/sdk';
import { SettingsForm } from './settings-form.js';
import { Today } from './today.js';
import { Links } from './links.js';

/** The page at /dashboard/leetcode (manifest pages.list[0].component). */
export function LeetCodePage(_props: PageProps) {
  return (
    <Page title="LeetCode">
      <p>
        LeetCode's daily problem goes to a Discord channel once a day. Members link their LeetCode username; an accepted
        submission of the day's problem that day is counted (checked every 30 minutes) and earns points while the Points
        module is on.
      </p>
      <SettingsForm />
      <Today />
      <Links />
    </Page>
  );
}

/** The module's card on Overview: linked members and today's post. */
export function LeetCodeCard() {
  return (
    <OverviewSection module="leetcode" what="LeetCode">
      {(s) => (
        <p data-testid="leetcode-card">
          {Number(s.linked)} linked members; {s.posted ? `today's problem (${String(s.title)}) posted, ${Number(s.solves)} solved` : 'today\'s problem not posted yet'}.
        </p>
      )}
    </OverviewSection>
  );
}
