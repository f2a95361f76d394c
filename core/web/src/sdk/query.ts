// The dashboard's one query cache (TanStack Query), shared with plugin pages. Answers are fresh 30 s, kept 10 min
// after no page shows them, never refetched because the window got focus, held in memory only, and cleared at
// sign-out (the shell does it). Queries of the API are keyed ['api', path], so a change can invalidate a path.
import { QueryClient, useMutation, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { apiFetch, ApiError, type ApiInit } from './api.js';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      gcTime: 10 * 60_000,
      refetchOnWindowFocus: false,
      // A refusal or a bad request will not change by asking again; an outage (5xx) or a network error may.
      retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status < 500),
    },
    mutations: { retry: false },
  },
});

/** The query key of an API path. */
export const apiKey = (path: string) => ['api', path] as const;

export interface UseApiOptions {
  /** Default: true (a null path also waits). */
  enabled?: boolean;
  /** Poll every this many ms while a page shows it. Default: no polling. */
  refetchInterval?: number;
}

/** GET an API path through the cache: `const greetings = useApi<{ greetings: Greeting[] }>(`/api/hello/${org.prefix}/greetings`)`. */
export function useApi<T>(path: string | null, options: UseApiOptions = {}): UseQueryResult<T, ApiError> {
  return useQuery<T, ApiError>({
    queryKey: apiKey(path ?? ''),
    queryFn: ({ signal }) => apiFetch<T>(path!, { signal }),
    enabled: path !== null && options.enabled !== false,
    refetchInterval: options.refetchInterval,
  });
}

/** Start fetching an API path into the cache before a page asks for it (no-op while a fresh answer is cached). */
export function prefetchApi(path: string): Promise<void> {
  return queryClient.prefetchQuery({ queryKey: apiKey(path), queryFn: ({ signal }) => apiFetch(path, { signal }) });
}

/** Mark every cached answer whose path starts with `prefix` stale (shown ones are fetched again). */
export function invalidateApi(prefix: string): Promise<void> {
  return queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] === 'api' && String(q.queryKey[1]).startsWith(prefix) });
}

/**
 * A change through the API: `const save = useApiMutation('PUT', path, { invalidate: [path] }); save.mutate(body)`.
 * The paths in `invalidate` (prefixes) are fetched again after a success.
 */
export function useApiMutation<TBody = unknown, TResult = unknown>(method: NonNullable<ApiInit['method']>, path: string, options: { invalidate?: string[] } = {}) {
  return useMutation<TResult, ApiError, TBody>({
    mutationFn: (body) => apiFetch<TResult>(path, { method, body }),
    onSuccess: async () => {
      await Promise.all((options.invalidate ?? []).map(invalidateApi));
    },
  });
}
