// One submodule as a card: what it brings (shared pages and their last crawl, live queries with their descriptions,
// feed presets, links), the modules that read it, how many orgs subscribe, whether this org does, and Subscribe or
// End subscription. A refused subscribe is said beside the button: a full limit with its numbers, else the API's error.
import { Button, Card, ErrorNote, useOrg } from '@quad/web/sdk';
import { isWebUrl, limitReached, plural, when, type Reader, type Submodule } from './common.js';

export interface Outcome { error?: unknown; note?: string }

const PARTS: Record<string, string> = { pages: 'shared pages', queries: 'live queries', feeds: 'feed presets', links: 'links' };

export function SubmoduleCard({ submodule: s, busy, outcome, onSubscribe, onEnd }: {
  submodule: Submodule; busy: boolean; outcome: Outcome | null; onSubscribe: () => void; onEnd: () => void;
}) {
  return (
    <Card title={s.title} actions={<span className={s.subscribed ? 'q-badge q-badge-on' : 'q-badge'}>{s.subscribed ? 'Subscribed' : 'Not subscribed'}</span>}>
      <p>{s.description}</p>
      <dl className="q-facts" aria-label={`What ${s.title} brings`}>
        {s.pages.length > 0 && <><dt>Shared pages</dt><dd>{pages(s)}</dd></>}
        {s.queries.length > 0 && (
          <><dt>Live queries</dt><dd>
            <details>
              <summary>{plural(s.queries.length, 'live query', 'live queries')}</summary>
              <ul style={{ margin: '4px 0', paddingLeft: 18 }}>
                {s.queries.map((q) => (
                  <li key={q.name}><strong>{q.title}</strong>: {q.description}{!q.index && ' (answers are not added to the knowledge)'}</li>
                ))}
              </ul>
            </details>
          </dd></>
        )}
        {s.feeds.length > 0 && (
          <><dt>Feed presets</dt><dd>
            <details>
              <summary>{plural(s.feeds.length, 'feed preset')}: {s.feeds.map((f) => f.title).join(', ')}</summary>
              <ul style={{ margin: '4px 0', paddingLeft: 18 }}>
                {s.feeds.map((f) => <li key={f.key}><strong>{f.title}</strong>: {f.description}</li>)}
              </ul>
              <p className="q-hint">While subscribed, the feeds module offers them on its Job alerts and Hackathons pages.</p>
            </details>
          </dd></>
        )}
        {(s.links.course_management || s.links.sign_in) && (
          <><dt>Links</dt><dd>
            <Link url={s.links.course_management} label="Course management" />
            {s.links.course_management && s.links.sign_in && ' · '}
            <Link url={s.links.sign_in} label="Sign-in" />
          </dd></>
        )}
        {s.modules.length > 0 && <><dt>Read by</dt><dd>{s.modules.map(reader).join(', ')}</dd></>}
        <dt>Subscribers</dt><dd>{plural(s.subscribers, 'org')}</dd>
        {s.subscribed_at && <><dt>Subscribed since</dt><dd>{when(s.subscribed_at)}</dd></>}
      </dl>
      <div className="q-form-actions">
        {s.subscribed
          ? <Button variant="danger" onClick={onEnd} disabled={busy} aria-label={`End subscription to ${s.title}`}>End subscription</Button>
          : <Button variant="primary" onClick={onSubscribe} disabled={busy} aria-label={`Subscribe to ${s.title}`}>Subscribe</Button>}
        {outcome?.note && <span role="status" className="q-saved">{outcome.note}</span>}
      </div>
      {outcome?.error !== undefined && <Refused error={outcome.error} title={s.title} />}
    </Card>
  );
}

/** Count and last crawl; without the knowledge module nothing crawls them. */
function pages(s: Submodule): string {
  const count = plural(s.pages.length, 'page');
  if (s.passages === null) return `${count}; not crawled (this service does not run the knowledge module)`;
  return `${count}, ${plural(s.passages, 'passage')}; last crawl ${when(s.last_crawl_at, 'not yet')}`;
}

function reader(r: Reader): string {
  const state = r.enabled ? 'on' : r.loaded ? 'off for this org' : 'not running here';
  return `${r.module} for ${r.parts.map((p) => PARTS[p] ?? p).join(', ')} (${state})`;
}

function Link({ url, label }: { url: string | null; label: string }) {
  if (!url) return null;
  return isWebUrl(url) ? <a href={url} target="_blank" rel="noopener noreferrer">{label}</a> : <>{label}: {url}</>;
}

function Refused({ error, title }: { error: unknown; title: string }) {
  const org = useOrg();
  const full = limitReached(error);
  if (!full) return <ErrorNote error={error} title={`${title}: not changed`} />;
  return (
    <div className="q-note q-note-error" role="alert">
      <strong>Limit reached.</strong> {org.name} subscribes to {full.use} of at most {plural(full.value, 'submodule')} (limit
      submodules.subscriptions). End a subscription first, or ask the superadmin to raise the limit.
    </div>
  );
}
