// Who is asking for a pod, as a pod sees them: the member's chat user id, the username podhost-login makes their
// account of (podhost_<username>), and whether they are an officer of the org (root, no forced command).
import { forbidden, type MachineCaller, type MemberCaller, type CoreServices, type OrgSnapshot } from '@quad/core';

export interface PodUser { chatUserId: string; username: string; isOfficer: boolean; via: 'session' | 'cli' }

/** Discord's usernames since 2023 (lower-case letters, digits, _ and .); the account name uses them as they are. */
const DISCORD_USERNAME = /^[a-z0-9_.]{2,32}$/;

/**
 * The username on the pod. A legacy name that a Linux account cannot carry becomes `id-<chat user id>`: `-` is not
 * allowed in Discord usernames, so two members never share an account. `..` (which Discord refuses too) would name
 * a folder's parent in the image's /workspace/<username>: podhost-login refuses it, so it is never sent.
 */
export function podUsername(discordUsername: string, chatUserId: string): string {
  return DISCORD_USERNAME.test(discordUsername) && !discordUsername.includes('..') ? discordUsername : `id-${chatUserId}`;
}

/** The chat user id a member route's caller speaks for (a session's, or the CLI token's member). */
function callerChatUserId(caller: MemberCaller | MachineCaller): string {
  return caller.kind === 'member' ? caller.chatUserId : caller.token.memberChatUserId!;
}

/**
 * The caller as the org's server knows them now (asked of Discord at each connect: a certificate is never given
 * on a cached answer). 403 not_member when they left the server; DiscordUnavailable (503) when Discord cannot say.
 */
export async function podUser(services: CoreServices, org: OrgSnapshot, caller: MemberCaller | MachineCaller): Promise<PodUser> {
  const chatUserId = callerChatUserId(caller);
  const member = org.discordGuildId ? await services.discord.member(org.discordGuildId, chatUserId) : null;
  if (!member) throw forbidden('You are not a member of the org\'s Discord server', 'not_member');
  return {
    chatUserId,
    username: podUsername(member.user.username, chatUserId),
    isOfficer: !!org.officerRoleId && member.roles.includes(org.officerRoleId),
    via: caller.kind === 'member' ? 'session' : 'cli',
  };
}
