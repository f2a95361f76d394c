// The New token form's limits and tool preview (Tokens page): per integration a chosen scope grants, `tools` and
// (for a service with its own MCP server, where calls are checked against them) `repos` patterns
// (`limits.<integration>`), and, as they change, the tools a token made with these scopes and limits
// would get now (POST /api/organizations/<org>/tokens/preview, debounced), grouped by integration, with the services
// whose MCP server could not list its tools and why.
import { useEffect, useId, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiFetch, ApiError } from '../sdk/api.js';
import { apiKey } from '../sdk/query.js';
import { Field } from '../sdk/ui/field.js';
import { ErrorNote } from '../sdk/ui/notes.js';
import { plural } from './activity/format.js';
import { IntegrationsLink, type Integration } from './integrations-table.js';

export interface IntegrationLimits { tools?: string[]; repos?: string[] }
export type Limits = Record<string, IntegrationLimits>;
/** The patterns as typed, per integration. */
export type PatternsText = Record<string, { tools: string; repos: string }>;

interface PreviewTool { name: string; title: string; scope: string; integration: string | null; remote: boolean }
interface PreviewAnswer { tools: PreviewTool[]; unavailable: { integration: string; error: string; reason: string | null }[] }

/** The preview asks again this long after the last change. */
const DEBOUNCE_MS = 300;

/** Patterns typed one a line or comma-separated. */
export const parsePatterns = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** The `limits` of the request: only the granted integrations, only fields with patterns (an empty list would allow nothing). */
export function limitsOf(granted: readonly string[], text: PatternsText): Limits {
  const limits: Limits = {};
  for (const key of granted) {
    const tools = parsePatterns(text[key]?.tools ?? '');
    const repos = parsePatterns(text[key]?.repos ?? '');
    if (tools.length || repos.length) limits[key] = { ...(tools.length && { tools }), ...(repos.length && { repos }) };
  }
  return limits;
}

/** A summary of a token's limits: `mcp: tools get_*; repos acm/*`. */
export const describeLimits = (limits: Limits) => Object.entries(limits)
  .map(([key, l]) => `${key}: ${[l.tools && `tools ${l.tools.join(', ')}`, l.repos && `repos ${l.repos.join(', ')}`].filter(Boolean).join('; ')}`)
  .join(' · ');

/** The limits inputs of one integration. */
export function LimitsFields({ integration, value, onChange }: {
  integration: Pick<Integration, 'key' | 'title' | 'remote'>; value: { tools: string; repos: string }; onChange: (value: { tools: string; repos: string }) => void;
}) {
  return (
    <fieldset className="q-limits">
      <legend>Limits for {integration.title}</legend>
      <Field as="textarea" rows={2} label="Tools" value={value.tools} onChange={(e) => onChange({ ...value, tools: e.target.value })}
        hint={<>Patterns, one a line or comma-separated; <code className="q-code">*</code> is any run of characters (<code className="q-code">get_*</code>, <code className="q-code">{integration.key}.list_*</code>). A pattern matches the tool's full name or the part after <code className="q-code">{integration.key}.</code> Empty: every tool.</>} />
      {/* Repositories are checked on calls to a service's own MCP server only. */}
      {integration.remote && <Field as="textarea" rows={2} label="Repositories" value={value.repos} onChange={(e) => onChange({ ...value, repos: e.target.value })}
        hint={<>owner/name patterns (<code className="q-code">acm/*</code>, without case): each call must name a matching repository, and a call naming none is refused. Empty: any repository.</>} />}
    </fieldset>
  );
}

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The tools a token with these scopes and limits would get now, grouped by integration. */
export function ToolPreview({ path, scopes, limits, granted, integrations }: {
  path: string; scopes: readonly string[]; limits: Limits; granted: readonly string[]; integrations: readonly Integration[];
}) {
  const headingId = useId();
  // Keyed by the request as text, so an equal request made again is not another query.
  const request = JSON.stringify({ scopes, ...(Object.keys(limits).length && { limits }) });
  const settled = useDebounced(request, DEBOUNCE_MS);
  const previewPath = `${path}/preview`;
  const preview = useQuery<PreviewAnswer, ApiError>({
    // Under the tokens path: a change there (a connected service) marks it stale too.
    queryKey: [...apiKey(previewPath), settled],
    queryFn: ({ signal }) => apiFetch<PreviewAnswer>(previewPath, { method: 'POST', body: JSON.parse(settled), signal }),
    enabled: scopes.length > 0,
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
  const titleOf = (key: string) => integrations.find((i) => i.key === key)?.title ?? key;

  let body;
  if (scopes.length === 0) body = <p className="q-hint">Choose scopes to see the tools the token would get.</p>;
  else if (preview.error) body = <ErrorNote title="No preview" error={preview.error} />;
  else if (!preview.data) body = <p className="q-loading">Loading…</p>;
  else {
    const { tools, unavailable } = preview.data;
    // The granted integrations first (each shown, even with no tool), then the module tools of other scopes.
    const keys = [...new Set<string | null>([...granted, ...tools.map((x) => x.integration).filter((k) => k !== null), null])];
    body = keys.map((key) => {
      const group = tools.filter((x) => x.integration === key);
      if (key === null && group.length === 0) return null;
      const title = key === null ? 'Tools of the modules' : titleOf(key);
      const down = key === null ? undefined : unavailable.find((u) => u.integration === key);
      const integration = key === null ? undefined : integrations.find((i) => i.key === key);
      let empty = 'No tool';
      if (integration && !integration.connected) empty = 'No tool: not connected';
      else if (key !== null && limits[key]?.tools) empty = 'No tool matches the patterns';
      return (
        <div key={key ?? ''} className="q-preview-group">
          <h4>{title} <span className="q-muted">({plural(group.length, 'tool')})</span></h4>
          {down && <p className="q-error">Unavailable: {down.error}{down.reason ? ` (${down.reason})` : ''}</p>}
          {group.length > 0
            ? <ul aria-label={`${title} tools`}>{group.map((x) => <li key={x.name}><code className="q-code">{x.name}</code>{x.title !== x.name && <span className="q-muted"> {x.title}</span>}</li>)}</ul>
            : !down && <p className="q-hint">{empty}{integration && !integration.connected && <> (connect it in <IntegrationsLink />)</>}.</p>}
        </div>
      );
    });
  }
  const updating = scopes.length > 0 && (settled !== request || preview.isFetching);
  return (
    <section className="q-preview" aria-labelledby={headingId} aria-busy={updating}>
      <h3 id={headingId}>Tools this token would get</h3>
      {scopes.length > 0 && preview.data && (
        <p className="q-hint" role="status">{updating ? 'Updating…' : `${plural(preview.data.tools.length, 'tool')} now`}</p>
      )}
      {body}
    </section>
  );
}
