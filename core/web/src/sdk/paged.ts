// Long lists read page by page from routes that answer `{ items, page, per_page, total }`: the first 100 rows, then
// the next 100 each time the officer asks for more (spec "Dashboard client rules": 100 rows and a show-more button).
import { useInfiniteQuery } from '@tanstack/react-query';
import { apiFetch, ApiError } from './api.js';

export interface PageAnswer<T> { items: T[]; page: number; per_page: number; total: number }

/**
 * `const runs = usePagedApi<Run>(`/api/dashboard/${org.prefix}/job-runs?status=failed`)`: `items` so far, `total`,
 * `more` (rows not loaded yet) and `loadMore()`. Keyed under the path, so `invalidateApi(path)` reloads it; `first`
 * is the first answer whole (for fields beside the items, such as open counts).
 */
export function usePagedApi<T, A extends PageAnswer<T> = PageAnswer<T>>(path: string | null, perPage = 100) {
  const query = useInfiniteQuery<A, ApiError>({
    queryKey: ['api', path ?? '', 'pages', perPage],
    queryFn: ({ pageParam, signal }) =>
      apiFetch<A>(`${path}${path!.includes('?') ? '&' : '?'}page=${pageParam as number}&per_page=${perPage}`, { signal }),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.page * last.per_page < last.total ? last.page + 1 : undefined),
    enabled: path !== null,
  });
  const pages = query.data?.pages ?? [];
  const items = pages.flatMap((p) => p.items);
  const total = pages.at(-1)?.total ?? 0;
  return {
    ...query,
    items,
    total,
    first: pages[0],
    more: Math.max(0, total - items.length),
    loadMore: () => void query.fetchNextPage(),
  };
}
