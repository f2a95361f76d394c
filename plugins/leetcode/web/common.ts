// What the LeetCode page's parts share: the records the routes answer (README "Routes"), the routes' base path and
// how a change refreshes the page. No server code here: the bundle carries only what the page needs.
import { useCallback } from 'react';
import { invalidateApi, useOrg } from '@quad/web/sdk';

export interface Settings { channel_id: string | null; post_hour_utc: number; points_per_solve: number; enabled: boolean; points_enabled: boolean }
export interface Link { chat_user_id: string; username: string; display_name: string | null; linked_by: string; linked_at: string; updated_at: string }
export interface Post {
  date: string; question_id: string; title: string; slug: string; difficulty: string; link: string; tags: string[];
  status: 'posting' | 'posted' | 'failed'; channel_id: string; message_id: string | null; error: string | null; posted_at: string | null; solves: number;
}
export interface Solve { chat_user_id: string; username: string; display_name: string | null; solved_at: string; points: number }

/** The LeetCode routes of the current org. */
export function useBase(): string {
  return `/api/leetcode/${useOrg().prefix}`;
}

/** Read everything of the page again, and the Overview's counts. */
export function useRefresh(): () => Promise<void> {
  const { prefix } = useOrg();
  return useCallback(async () => {
    await Promise.all([invalidateApi(`/api/leetcode/${prefix}/`), invalidateApi(`/api/dashboard/${prefix}/overview`)]);
  }, [prefix]);
}

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
