// Tokens (spec "Organisation token and module routes", "Rules for tokens"; the old `mcp` address leads here): the
// org's machine tokens, a new one (its limits per integration with a live preview of its tools, token-limits.tsx;
// shown once, then never again), revoking one, and the integrations the scopes reach (read-only).
// GET/POST/DELETE /api/organizations/<org>/tokens, POST …/tokens/preview.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { apiFetch } from '../sdk/api.js';
import { useOrg } from '../sdk/org.js';
import { invalidateApi, useApi } from '../sdk/query.js';
import { Button } from '../sdk/ui/button.js';
import { Card } from '../sdk/ui/card.js';
import { ConfirmDialog } from '../sdk/ui/dialog.js';
import { EmptyState } from '../sdk/ui/empty-state.js';
import { Field } from '../sdk/ui/field.js';
import { ErrorNote, Loading } from '../sdk/ui/notes.js';
import { Page } from '../sdk/ui/page.js';
import { Table } from '../sdk/ui/table.js';
import { StatusBadge, When } from './activity/format.js';
import { IntegrationsLink, IntegrationsTable, tokensPath, type Integration } from './integrations-table.js';
import { describeLimits, limitsOf, LimitsFields, ToolPreview, type Limits, type PatternsText } from './token-limits.js';
import './activity.css';

export interface TokenRecord {
  id: number; name: string; kind: string; scopes: string[]; limits: Limits;
  prefix: string; created_by: string; created_at: string; expires_at: string | null; revoked: boolean; last_used_at: string | null;
}
interface Scope { name: string; description: string; module: string; integration: string | null; uses: string[] }
interface TokensAnswer { tokens: TokenRecord[]; scopes: Scope[]; integrations: Integration[] }

/** Kinds an officer makes here; CLI tokens come from the CLI's own sign-in. */
const KINDS = [{ id: 'agent', label: 'Agent' }, { id: 'app', label: 'App' }];

const stateOf = (t: TokenRecord) => (t.revoked ? 'revoked' : t.expires_at && Date.parse(t.expires_at) <= Date.now() ? 'expired' : 'active');

export function Tokens() {
  const org = useOrg();
  const path = tokensPath(org.prefix);
  const answer = useApi<TokensAnswer>(path);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<TokenRecord | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);

  const revoke = async (token: TokenRecord) => {
    setBusy(true);
    setFailure(null);
    try {
      await apiFetch(`${path}/${token.id}`, { method: 'DELETE' });
      setDone(`${token.name} is revoked: requests with it are refused from now on.`);
      await invalidateApi(path);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
      setRevoking(null);
    }
  };

  return (
    <Page title="Tokens" actions={<Button variant="primary" onClick={() => { setDone(null); setCreating(true); }} disabled={!answer.data}>New token</Button>}>
      <p className="q-hint">Machine tokens let agents and apps call {org.name}'s API and tools with the scopes they are given. A token is shown once, when it is made.</p>
      {done && <p className="q-note q-note-ok" role="status">{done}</p>}
      {failure !== null && <ErrorNote title="The token was not revoked" error={failure} />}
      {answer.isPending ? <Loading /> : answer.error ? <ErrorNote error={answer.error} /> : (
        <>
          <Card title="Machine tokens">
            {answer.data.tokens.length === 0
              ? <EmptyState title="No tokens yet" action={<Button onClick={() => setCreating(true)}>New token</Button>}>Make one for an agent or an app.</EmptyState>
              : <TokenTable tokens={answer.data.tokens} busy={busy} onRevoke={(t) => { setDone(null); setRevoking(t); }} />}
          </Card>
          <Integrations integrations={answer.data.integrations} />
          {creating && <CreateDialog path={path} scopes={answer.data.scopes} integrations={answer.data.integrations} onClose={() => setCreating(false)} />}
        </>
      )}
      <ConfirmDialog open={revoking !== null} title={`Revoke ${revoking?.name ?? ''}?`} confirmLabel="Revoke" danger busy={busy}
        onConfirm={() => revoking && void revoke(revoking)} onCancel={() => setRevoking(null)}>
        <p>Every agent or app using the token starting <code className="q-code">{revoking?.prefix}</code> is refused from now on. This cannot be undone.</p>
      </ConfirmDialog>
    </Page>
  );
}

function TokenTable({ tokens, busy, onRevoke }: { tokens: TokenRecord[]; busy: boolean; onRevoke: (t: TokenRecord) => void }) {
  return (
    <Table caption="Machine tokens" rows={tokens} rowKey={(t) => t.id} columns={[
      { header: 'Name', cell: (t) => <><div className="q-cell-title">{t.name}</div><div className="q-cell-text">by <span className="q-code">{t.created_by}</span></div></> },
      { header: 'Kind', cell: 'kind' },
      {
        header: 'Scopes',
        cell: (t) => <><span className="q-code">{t.scopes.join(', ')}</span>{Object.keys(t.limits).length > 0 && <div className="q-cell-text">Limits: <span className="q-code">{describeLimits(t.limits)}</span></div>}</>,
      },
      { header: 'Starts with', cell: (t) => <code className="q-code">{t.prefix}…</code> },
      { header: 'State', cell: (t) => <StatusBadge status={stateOf(t)} /> },
      { header: 'Created', cell: (t) => <When at={t.created_at} /> },
      { header: 'Expires', cell: (t) => (t.expires_at ? <When at={t.expires_at} /> : 'never') },
      { header: 'Last used', cell: (t) => (t.last_used_at ? <When at={t.last_used_at} /> : 'never') },
      {
        header: <span className="q-visually-hidden">Actions</span>,
        cell: (t) => (t.revoked ? null : <Button variant="danger" onClick={() => onRevoke(t)} disabled={busy} aria-label={`Revoke ${t.name}`}>Revoke</Button>),
      },
    ]} />
  );
}

/** Make a token, then show it once: closing the dialog forgets it. */
function CreateDialog({ path, scopes, integrations, onClose }: { path: string; scopes: Scope[]; integrations: Integration[]; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [name, setName] = useState('');
  const [kind, setKind] = useState('agent');
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [days, setDays] = useState('');
  const [patterns, setPatterns] = useState<PatternsText>({});
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [made, setMade] = useState<{ token: string; record: TokenRecord } | null>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    ref.current?.showModal();
  }, []);

  // The integrations the chosen scopes grant, in the scopes' order: each gets its limits.
  const chosenScopes = scopes.filter((s) => chosen.has(s.name));
  const granted = [...new Set(chosenScopes.flatMap((s) => (s.integration ? [s.integration] : [])))];
  const limits = limitsOf(granted, patterns);

  const close = () => {
    // The token leaves memory with the dialog: it is never shown again.
    setMade(null);
    onClose();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return setProblem('Give the token a name.');
    if (chosen.size === 0) return setProblem('Choose at least one scope.');
    setProblem(null);
    setBusy(true);
    setFailure(null);
    try {
      const body = {
        name: name.trim(), kind, scopes: chosenScopes.map((s) => s.name),
        ...(days && { expires_days: Number(days) }), ...(Object.keys(limits).length && { limits }),
      };
      setMade(await apiFetch<{ token: string; record: TokenRecord }>(path, { method: 'POST', body }));
      await invalidateApi(path);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(made!.token);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };

  return (
    <dialog ref={ref} className="q-dialog q-dialog-wide" aria-labelledby={titleId} onCancel={(e) => { e.preventDefault(); close(); }}>
      {made ? (
        <>
          <h2 id={titleId} className="q-dialog-title">Copy the token for {made.record.name}</h2>
          <p><strong>You will not see it again.</strong> Copy it now and keep it somewhere safe; if it is lost, revoke it and make another.</p>
          <div className="q-secret">
            <code className="q-code" aria-label="The new token">{made.token}</code>
            <Button onClick={() => void copy()}>Copy</Button>
          </div>
          {copied && <p role="status" className="q-hint">{copied === 'yes' ? 'Copied.' : 'The browser did not allow copying: select the token and copy it by hand.'}</p>}
          <div className="q-dialog-actions">
            <Button variant="primary" onClick={close} autoFocus>Done</Button>
          </div>
        </>
      ) : (
        <form className="q-dialog-form" onSubmit={(e) => void submit(e)} noValidate>
          <h2 id={titleId} className="q-dialog-title">New token</h2>
          <Field label="Name" value={name} maxLength={100} required autoFocus onChange={(e) => setName(e.target.value)} hint="What uses it, e.g. Release bot" />
          <Field as="select" label="Kind" value={kind} onChange={(e) => setKind(e.target.value)}>
            {KINDS.map((k) => <option key={k.id} value={k.id}>{k.label}</option>)}
          </Field>
          <fieldset className="q-checks">
            <legend>Scopes</legend>
            {scopes.length === 0 && <p className="q-hint">No module that is loaded declares a scope.</p>}
            {scopes.map((s) => (
              <label key={s.name} className="q-check-row">
                <input type="checkbox" className="q-check" checked={chosen.has(s.name)} onChange={(e) => setChosen((c) => {
                  const next = new Set(c);
                  if (e.target.checked) next.add(s.name); else next.delete(s.name);
                  return next;
                })} />
                <span><span className="q-code">{s.name}</span><small>{s.description}{s.uses.length ? ` (uses ${s.uses.join(', ')})` : ''}</small></span>
              </label>
            ))}
          </fieldset>
          {granted.map((key) => {
            const integration = integrations.find((i) => i.key === key) ?? { key, title: key, remote: false };
            return <LimitsFields key={key} integration={integration} value={patterns[key] ?? { tools: '', repos: '' }}
              onChange={(value) => setPatterns((p) => ({ ...p, [key]: value }))} />;
          })}
          <ToolPreview path={path} scopes={chosenScopes.map((s) => s.name)} limits={limits} granted={granted} integrations={integrations} />
          <Field label="Expires after (days)" type="number" min={1} max={3650} value={days} onChange={(e) => setDays(e.target.value)}
            hint="Leave empty for a token that does not expire." />
          {problem && <p className="q-error" role="alert">{problem}</p>}
          {failure !== null && <ErrorNote title="The token was not made" error={failure} />}
          <div className="q-dialog-actions">
            <Button onClick={close}>Cancel</Button>
            <Button type="submit" variant="primary" disabled={busy}>Make token</Button>
          </div>
        </form>
      )}
    </dialog>
  );
}

function Integrations({ integrations }: { integrations: Integration[] }) {
  if (integrations.length === 0) return null;
  return (
    <Card title="Integrations">
      <p className="q-hint">The outside services whose tools scopes reach. Connect them in <IntegrationsLink />; a token's limits narrow its tools per service.</p>
      <IntegrationsTable integrations={integrations} />
    </Card>
  );
}
