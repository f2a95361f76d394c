// @quad/web/sdk: what the dashboard shares with plugin pages. A plugin's bundle imports it by this bare name and
// the dashboard's import map gives it the dashboard's own instance (the same request layer, query cache, current
// org and UI). Versioned with @quad/web; README "Write a plugin" (Pages) documents it.
export { apiFetch, apiUrl, ApiError, signOut, type ApiInit } from './api.js';
export { useApi, useApiMutation, invalidateApi, prefetchApi, apiKey, queryClient, type UseApiOptions } from './query.js';
export { useOrg, type CurrentOrg, type Branding } from './org.js';
export { DashboardLink, useDashboardNavigate } from './navigation.js';
export { Button, type ButtonProps } from './ui/button.js';
export { Card } from './ui/card.js';
export { Field } from './ui/field.js';
export { Table, type Column } from './ui/table.js';
export { ShowMore } from './ui/show-more.js';
export { EmptyState } from './ui/empty-state.js';
export { ConfirmDialog } from './ui/dialog.js';
export { Page } from './ui/page.js';
export { Tabs, tabId, type Tab } from './ui/tabs.js';
export { ErrorNote, Loading, SaveOutcome } from './ui/notes.js';
export type { PageProps, MemberPageProps } from './page-props.js';
export { LineChart, summarize } from './ui/line-chart.js';
export { usePagedApi, type PageAnswer } from './paged.js';
export { UsageBar, NEAR_LIMIT } from './ui/usage-bar.js';
export { OverviewSection, type OverviewSectionData } from './ui/overview-section.js';
export { followRun, useRunTracks, RUN_POLL_MS, RUN_GIVE_UP_MS, type RunFollower } from './run-follow.js';
