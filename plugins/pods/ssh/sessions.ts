// Who is on a pod now, read from its process list (spec "Officer pod routes", the connected route). A member session
// is the `su - podhost_<username>` process podhost-login becomes; an officer session is a shell started with
// /etc/podhost/admin.bashrc, whose environment names the officer (PODHOST_USER). A root login that bypasses both is
// not a session here. One command does it all, so the route needs one SSH round trip.

export const PODHOST_LOGIN = '/usr/local/bin/podhost-login';
const ADMIN_RC = '/etc/podhost/admin.bashrc';
const NO_LOGIN_MARK = 'podhost-login-missing';
const ENVIRON_MARK = '--environ--';

/**
 * Prints `pid etimes args` for every process, then `pid PODHOST_USER` for each officer shell. The shell's own
 * command line (this text) holds `admin[.]bashrc`, not the literal path, so it never matches itself.
 */
export const SESSIONS_COMMAND = [
  `if [ ! -x ${PODHOST_LOGIN} ]; then echo ${NO_LOGIN_MARK}; exit 0; fi`,
  'ps -eo pid=,etimes=,args=',
  `echo ${ENVIRON_MARK}`,
  "for pid in $(ps -eo pid=,args= | awk '/\\/etc\\/podhost\\/admin[.]bashrc/ { print $1 }'); do",
  "  user=$(tr '\\0' '\\n' < /proc/$pid/environ 2>/dev/null | sed -n 's/^PODHOST_USER=//p' | head -n 1)",
  '  if [ -n "$user" ]; then echo "$pid $user"; fi',
  'done',
].join('\n');

export interface ShellSession {
  username: string;
  is_admin: boolean;
  /** How long the session's process has run. */
  seconds: number;
}

export type SessionsReading = { podhostLogin: false } | { podhostLogin: true; sessions: ShellSession[] };

/** Linux account names as podhost-login makes them (podUsername: Discord usernames, or id-<chat user id>). */
const USERNAME = /^[A-Za-z0-9_.-]{1,64}$/;
const MEMBER_PROCESS = /^su - podhost_(\S+)(?:\s|$)/;
// The arguments start at a non-space, so `\s+` and them cannot share spaces (`\s+(.*)$` tried every split).
const PROCESS_LINE = /^\s*(\d+)\s+(\d+)\s+(\S.*)?$/;

/** The sessions in SESSIONS_COMMAND's output, longest-running first within each username. */
export function parseSessions(output: string): SessionsReading {
  const lines = output.split('\n');
  if (lines[0]?.trim() === NO_LOGIN_MARK) return { podhostLogin: false };
  const split = lines.indexOf(ENVIRON_MARK);
  const processes = (split === -1 ? lines : lines.slice(0, split)).flatMap((line) => {
    const m = PROCESS_LINE.exec(line);
    return m ? [{ pid: m[1], seconds: Number(m[2]), args: m[3] ?? '' }] : [];
  });
  const officers = new Map<string, string>();
  for (const line of split === -1 ? [] : lines.slice(split + 1)) {
    const m = /^(\d+) (.+)$/.exec(line.trim());
    if (m && USERNAME.test(m[2])) officers.set(m[1], m[2]);
  }
  const sessions: ShellSession[] = [];
  for (const p of processes) {
    const member = MEMBER_PROCESS.exec(p.args)?.[1];
    if (member && USERNAME.test(member)) sessions.push({ username: member, is_admin: false, seconds: p.seconds });
    const officer = officers.get(p.pid);
    if (officer && p.args.includes(ADMIN_RC)) sessions.push({ username: officer, is_admin: true, seconds: p.seconds });
  }
  sessions.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : b.seconds - a.seconds));
  return { podhostLogin: true, sessions };
}
