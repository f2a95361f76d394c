// The page the CLI sign-in ends on: the new token, shown this once (never cached, never sent on as a referrer), and
// what to do with it. Plain HTML with no script: the member copies the token into the CLI's prompt.
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const CLI_PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-frame-options': 'DENY',
};

export function cliTokenPage(options: { cliName: string; orgName: string; username: string; token: string; expiresAt: Date }): string {
  const cli = escapeHtml(options.cliName);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${cli}: signed in</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{display:block;padding:1rem;background:#f2f2f2;word-break:break-all;user-select:all}</style>
</head><body>
<h1>Signed in to ${escapeHtml(options.orgName)} as ${escapeHtml(options.username)}</h1>
<p>Paste this token where <strong>${cli} login</strong> asks for it. It is shown only this once and works until ${options.expiresAt.toISOString().slice(0, 10)}; signing in again replaces it.</p>
<code id="token">${escapeHtml(options.token)}</code>
<p>Then close this page.</p>
</body></html>
`;
}
