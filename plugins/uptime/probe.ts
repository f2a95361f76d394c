// One check of one URL through the core's safe fetcher (the URL is an officer's, never trusted: every hop's address
// must be public, redirects are followed and re-checked as safeFetch does, at most 5). A check fails with a reason:
// the status is not the expected one, the keyword is not in the first 1 MB of the body, or the fetch failed
// (timeout, refused address, network, too large, too many redirects). The message names the host at most, never
// an address it resolved to.
import { safeFetch, SafeFetchError } from '@quad/core';

/** The keyword is looked for in this much of the body. */
export const KEYWORD_WINDOW = 1024 * 1024;
/** Larger bodies fail the check (too_large): safeFetch has no "read only the start" mode. */
export const BODY_MAX = 5 * 1024 * 1024;
export const USER_AGENT = 'QuadUptime/1.0 (+uptime monitor)';

export type FailureReason = 'status_mismatch' | 'keyword_missing' | 'timeout' | 'refused' | 'network' | 'too_large' | 'too_many_redirects';

export interface ProbeTarget { url: string; expected_status: number; timeout_ms: number; keyword: string | null }
export interface ProbeResult { ok: boolean; status: number | null; latency_ms: number; reason: FailureReason | null; message: string | null }

export async function probe(target: ProbeTarget): Promise<ProbeResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  try {
    const res = await safeFetch(target.url, {
      timeoutMs: target.timeout_ms, maxBytes: BODY_MAX, headers: { 'user-agent': USER_AGENT, accept: '*/*' },
    });
    const latency = elapsed();
    if (res.status !== target.expected_status) {
      return { ok: false, status: res.status, latency_ms: latency, reason: 'status_mismatch', message: `answered ${res.status}, expected ${target.expected_status}` };
    }
    if (target.keyword !== null && !res.body.subarray(0, KEYWORD_WINDOW).includes(target.keyword, 0, 'utf8')) {
      return { ok: false, status: res.status, latency_ms: latency, reason: 'keyword_missing', message: 'the keyword is not in the first 1 MB of the page' };
    }
    return { ok: true, status: res.status, latency_ms: latency, reason: null, message: null };
  } catch (err) {
    if (!(err instanceof SafeFetchError)) throw err;
    return { ok: false, status: null, latency_ms: elapsed(), reason: err.reason, message: err.message };
  }
}
