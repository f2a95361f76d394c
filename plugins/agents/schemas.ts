// The agents module's request and answer shapes (spec document 2, "Agent records" and "Agent routes"). Where the spec
// says "not shown" (roles, sizes), the choices are in the README.
import { Type } from '@quad/core';
import { KINDS, SENSITIVITIES } from './memories.js';

/** A chat user id: the platform's snowflake (digits). */
export const SnowflakePattern = '^[0-9]{1,20}$';
export const MAX_CONTENT_CHARS = 32_000;
export const MAX_MESSAGES_PER_POST = 100;
export const MESSAGES_DEFAULT = 50;
export const MESSAGES_MAX = 500;
export const ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export const CHANNEL_ID_MAX_CHARS = 100;
/** The largest pending action: its JSON text's UTF-8 bytes (16 KB). */
export const MAX_ACTION_BYTES = 16 * 1024;

/**
 * A chat channel id, wherever agents take one (a conversation's channel_id, the `<channel>` of the channel routes, a
 * turn's commit): a server channel's snowflake, but also a DM's, a thread's or a web chat's id ("chan-1",
 * "web:5f2c…"), as the seed stores any. Non-empty, up to 100 characters, no control character (C0, DEL or C1).
 */
export const ChannelId = Type.String({
  minLength: 1, maxLength: CHANNEL_ID_MAX_CHARS, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$',
  description: 'a chat channel id: any text of 1 to 100 characters without control characters',
});

/** A pending action: any JSON value (object, array, string, number, boolean or null), returned on the claim as given. */
export const PendingAction = Type.Unknown({ description: `any JSON value up to ${MAX_ACTION_BYTES / 1024} KB of JSON text (UTF-8), returned on the claim as given` });

/** `<member_id>` of the spec's paths: the member's chat user id (document 1 writes it chat_user_id). */
export const MemberParams = Type.Object({
  chat_user_id: Type.String({ pattern: SnowflakePattern, description: 'the member\'s chat user id' }),
});
export const ConversationParams = Type.Object({ ...MemberParams.properties, uuid: Type.String({ format: 'uuid' }) });
export const ChannelParams = Type.Object({ ...MemberParams.properties, channel: ChannelId });

export const Visibility = Type.Union([Type.Literal('public'), Type.Literal('private')]);
export const VisibilityQuery = Type.Object({ visibility: Type.Optional(Visibility) }, { additionalProperties: false });

export const ConversationBody = Type.Object({
  channel_id: ChannelId,
  visibility: Visibility,
}, { additionalProperties: false });

const Time = Type.String({ format: 'date-time' });

export const ConversationOut = Type.Object({
  id: Type.String({ format: 'uuid' }), member_id: Type.String(), channel_id: Type.String(), visibility: Visibility,
  last_seq: Type.Integer({ description: 'seq of the newest message; 0 before the first' }),
  ended_at: Type.Union([Time, Type.Null()]), created_at: Time, updated_at: Time,
});

export const MessageIn = Type.Object({
  role: Type.Union(ROLES.map((r) => Type.Literal(r))),
  content: Type.String({ maxLength: MAX_CONTENT_CHARS }),
}, { additionalProperties: false });

export const MessagesBody = Type.Object({
  messages: Type.Array(MessageIn, { minItems: 1, maxItems: MAX_MESSAGES_PER_POST }),
}, { additionalProperties: false });

export const MessageOut = Type.Object({ seq: Type.Integer(), role: Type.String(), content: Type.String(), created_at: Time });

export const SummaryBody = Type.Object({
  content: Type.String({ minLength: 1, maxLength: MAX_CONTENT_CHARS }),
  covers: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'the last seq the summary replaces' }),
}, { additionalProperties: false });

export const SummaryOut = Type.Object({ content: Type.String(), covers: Type.Integer(), created_at: Time });

export const PendingParams = Type.Object({ ...MemberParams.properties, uuid: Type.String({ format: 'uuid' }) });
export const PendingBody = Type.Object({
  action: PendingAction,
  payload_hash: Type.String({ minLength: 1, maxLength: 200 }),
  ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400, default: 600 })),
}, { additionalProperties: false });
export const PendingOut = Type.Object({
  id: Type.String({ format: 'uuid' }), action: PendingAction, payload_hash: Type.String(), expires_at: Time,
});
export const ClaimBody = Type.Object({ approved: Type.Boolean() }, { additionalProperties: false });
export const ClaimOut = Type.Object({ ...PendingOut.properties, approved: Type.Boolean() });

export const MEMORIES_DEFAULT = 20;
export const MEMORIES_MAX = 200;
export const MEMORY_MAX_CHARS = 8000;

export const MemoryKind = Type.Union(KINDS.map((k) => Type.Literal(k)));
export const MemoryIn = Type.Object({
  kind: MemoryKind,
  content: Type.String({ minLength: 1, maxLength: MEMORY_MAX_CHARS }),
  sensitivity: Type.Optional(Type.Union(SENSITIVITIES.map((s) => Type.Literal(s)), { description: 'sensitive: encrypted with SECRETS_KEY (503 without it)' })),
  confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'default 0.5' })),
  source_seq: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()], { description: 'the message it came from' })),
  expires_in_days: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()])),
}, { additionalProperties: false });
export const MemoryOut = Type.Object({
  id: Type.Integer(), kind: MemoryKind, content: Type.String(), sensitivity: Type.String(), confidence: Type.Number(),
  source_seq: Type.Union([Type.Integer(), Type.Null()]), expires_at: Type.Union([Time, Type.Null()]), created_at: Time,
});
export const MemoriesQuery = Type.Object({
  kinds: Type.Optional(Type.String({ maxLength: 100, description: 'comma-separated kinds: episodic, semantic, profile, task' })),
  limit: Type.Integer({ minimum: 0, maximum: MEMORIES_MAX, default: MEMORIES_DEFAULT }),
}, { additionalProperties: false });
export const MemoryParams = Type.Object({ ...MemberParams.properties, id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export const PROFILE_DEFAULT = 100;
export const PROFILE_MAX = 2000;
export const MAX_FACTS_PER_POST = 200;

export const NodeRef = Type.Object({
  kind: Type.String({ minLength: 1, maxLength: 100, description: 'e.g. person, skill, course, club' }),
  label: Type.String({ minLength: 1, maxLength: 500 }),
}, { additionalProperties: false });
export const FactIn = Type.Object({
  subject: NodeRef,
  relation: Type.String({ minLength: 1, maxLength: 200, description: 'e.g. knows, studies, member_of' }),
  object: NodeRef,
  confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'default 0.5; an existing relation keeps the higher' })),
}, { additionalProperties: false });
export const FactsBody = Type.Object({ facts: Type.Array(FactIn, { minItems: 1, maxItems: MAX_FACTS_PER_POST }) }, { additionalProperties: false });
export const RelationOut = Type.Object({ subject: NodeRef, relation: Type.String(), object: NodeRef, confidence: Type.Number() });
export const ProfileOut = Type.Object({ nodes: Type.Array(NodeRef), relations: Type.Array(RelationOut) });
export const RelationBody = Type.Object({ subject: NodeRef, relation: Type.String({ minLength: 1, maxLength: 200 }), object: NodeRef }, { additionalProperties: false });

export const ContextBody = Type.Object({
  conversation_id: Type.String({ format: 'uuid' }),
  visibility: Visibility,
  message_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MESSAGES_MAX, description: 'default 50; 0 leaves messages out' })),
  memory_kinds: Type.Optional(Type.Array(MemoryKind, { maxItems: 4 })),
  memory_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MEMORIES_MAX, description: 'default 20; 0 leaves memories out' })),
  profile_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: PROFILE_MAX, description: 'default 100; 0 leaves the profile out' })),
  profile_query: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'with an embedder, profile.similar holds the nodes nearest to it' })),
}, { additionalProperties: false });

export const ContextOut = Type.Object({
  member: Type.Object({ chat_user_id: Type.String(), display_name: Type.String(), role_ids: Type.Array(Type.String()), officer: Type.Boolean() }),
  conversation: Type.Object({ id: Type.String({ format: 'uuid' }), owned: Type.Boolean() }),
  summary: Type.Union([SummaryOut, Type.Null()]),
  messages: Type.Array(MessageOut),
  memories: Type.Array(MemoryOut),
  profile: Type.Object({
    nodes: Type.Array(NodeRef), relations: Type.Array(RelationOut),
    similar: Type.Union([Type.Array(Type.Object({ ...NodeRef.properties, distance: Type.Number() })), Type.Null()], { description: 'null without profile_query or an embedder' }),
  }),
});

export const CommitBody = Type.Object({
  conversation_id: Type.String({ format: 'uuid' }),
  channel_id: ChannelId,
  visibility: Visibility,
  messages: Type.Optional(Type.Array(MessageIn, { maxItems: MAX_MESSAGES_PER_POST })),
  summary: Type.Optional(Type.Object({
    content: Type.String({ minLength: 1, maxLength: MAX_CONTENT_CHARS }),
    covers: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'default: the newest message, this turn\'s included' })),
  }, { additionalProperties: false })),
  memories: Type.Optional(Type.Array(MemoryIn, { maxItems: 50 })),
  facts: Type.Optional(Type.Array(FactIn, { maxItems: MAX_FACTS_PER_POST })),
  pending: Type.Optional(Type.Array(Type.Object({ id: Type.String({ format: 'uuid' }), ...PendingBody.properties }, { additionalProperties: false }), { maxItems: 10 })),
}, { additionalProperties: false });

export const CommitOut = Type.Object({
  seqs: Type.Array(Type.Integer()),
  summary_seq: Type.Union([Type.Integer(), Type.Null()], { description: 'the last seq the summary covers' }),
  memory_ids: Type.Array(Type.Integer()),
  facts: Type.Array(RelationOut),
  pending: Type.Array(PendingOut),
});
