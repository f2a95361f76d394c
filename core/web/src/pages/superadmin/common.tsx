// What the superadmin tabs share: the org list, and a failure note that says plainly when the bot is down (every
// superadmin route answers 503 bot_unavailable then).
import { ApiError } from '../../sdk/api.js';
import { useApi } from '../../sdk/query.js';
import { ErrorNote } from '../../sdk/ui/notes.js';

export interface AdminOrg {
  id: number; prefix: string; name: string; description: string; guild_id: string | null; officer_role_id: string | null;
  publisher: boolean; modules: Record<string, boolean>; created_at: string;
}

export const ORGS_PATH = '/api/superadmin/orgs';

export const useAdminOrgs = () => useApi<{ orgs: AdminOrg[] }>(ORGS_PATH);

export const botDown = (error: unknown) => error instanceof ApiError && error.status === 503 && error.reason === 'bot_unavailable';

export function AdminError({ error, title }: { error: unknown; title?: string }) {
  if (botDown(error)) {
    return (
      <div className="q-note q-note-warn" role="alert">
        <strong>The Discord bot is unavailable.</strong> The superadmin pages need it and answer nothing while it is down.
        Try again shortly; the service's log says why.
      </div>
    );
  }
  return <ErrorNote error={error} title={title} />;
}
