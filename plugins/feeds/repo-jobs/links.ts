// Which link of a row is the application, and the form of it that identifies the posting: the lists add tracking
// parameters (utm_source=Simplify&ref=Simplify) that change over time, which must not make an old posting look new.

/**
 * Query parameters removed by `cleanLink`, compared case-insensitively: every `utm_*`, plus these. They only say
 * where a click came from; ids such as `gh_jid` (Greenhouse job id) or `token` stay.
 */
export const TRACKING_PARAMETERS = new Set([
  'ref', 'referrer', 'source', 'src', 'gh_src', 'lever-source', 'lever-source[]', 'lever-origin',
  'fbclid', 'gclid', 'msclkid', 'mc_cid', 'mc_eid', '_hsenc', '_hsmi',
]);

function isTracking(name: string): boolean {
  let decoded = name;
  try { decoded = decodeURIComponent(name.replace(/\+/g, ' ')); } catch { /* a bad escape is kept as written */ }
  const lower = decoded.toLowerCase();
  return lower.startsWith('utm_') || TRACKING_PARAMETERS.has(lower);
}

/**
 * The link without tracking parameters. The rest of the query keeps its order and its exact spelling (the string is
 * cut, not re-encoded), and the fragment stays (single-page job boards route with it). Idempotent.
 */
export function cleanLink(url: string): string {
  const trimmed = url.trim();
  const hashAt = trimmed.indexOf('#');
  const beforeHash = hashAt === -1 ? trimmed : trimmed.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : trimmed.slice(hashAt);
  const queryAt = beforeHash.indexOf('?');
  if (queryAt === -1) return trimmed;
  const kept = beforeHash.slice(queryAt + 1).split('&').filter((pair) => pair !== '' && !isTracking(pair.split('=')[0]));
  return `${beforeHash.slice(0, queryAt)}${kept.length ? `?${kept.join('&')}` : ''}${hash}`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

const isSimplify = (url: string) => { const host = hostOf(url); return host === 'simplify.jobs' || host.endsWith('.simplify.jobs'); };
/** The Wayback Machine copy the New-Grad list puts next to a closed role ("Archived"): a snapshot, not an application. */
const isArchive = (url: string) => { const host = hostOf(url); return host === 'archive.org' || host.endsWith('.archive.org'); };

/**
 * The application link of a cell's links: the first one that is not on simplify.jobs (Simplify lists show the
 * employer's posting first and their own one-click page second); a Simplify link only when it is the only kind.
 * Archive snapshots (web.archive.org) are never the application.
 */
export function pickApplicationLink(links: string[]): string | null {
  const live = links.filter((url) => !isArchive(url));
  return live.find((url) => !isSimplify(url)) ?? live[0] ?? null;
}
