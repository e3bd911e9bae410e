import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '../helpers/wait-until.js';

export const FAKE_DISCORD_TOKEN = 'fake-discord-bot-token';
export const FAKE_APPLICATION_ID = '900000000000000001';

/** One request that reached the fake REST API, with its JSON body parsed (a multipart one's `payload_json`). */
export interface DiscordCall {
  method: string;
  /** The route below the versioned base, e.g. `/channels/222/messages`. */
  path: string;
  body: any;
  /** The files of a multipart request. */
  files?: DiscordFileRecord[];
  headers: IncomingHttpHeaders;
  /** The HTTP status the fake answered with. */
  status: number;
  /** The Retry-After of a 429, in seconds. */
  retryAfterSeconds?: number;
  at: number;
}

export interface DiscordMessageRecord {
  id: string;
  channelId: string;
  body: any;
  /** The message this one replies to (message_reference). */
  replyTo: string | null;
  nonce: string | null;
  edits: number;
  deleted: boolean;
  /** Who wrote it; the bot when absent. */
  authorId?: string;
  /** The files it carries, from a multipart request. */
  files?: DiscordFileRecord[];
  /** The interaction it answers (a follow-up, or the original response edited later). */
  interactionToken?: string;
}

/** A file of a multipart request: the part `files[n]` and the attachment of the payload that names it. */
export interface DiscordFileRecord {
  /** The form field, `files[0]`. */
  field: string;
  filename: string;
  contentType: string;
  content: string;
}

/** An interaction the fake sent, as Discord keeps it for its token's webhook. */
interface SentInteraction {
  applicationId: string;
  channelId: string;
  /** The initial response's type, once statusbot answered. */
  responseType: number | null;
  /** The message shown for the response once a follow-up or an edit filled the deferred one. */
  originalId: string | null;
}

/** A text channel the bot created in a guild, with the members given their own permission overwrite. */
export interface DiscordChannelRecord {
  id: string;
  guildId: string;
  name: string;
  members: string[];
}

export const FAKE_BOT_USER_ID = '900000000000000002';

export type FakeFailure =
  | { status: 500 }
  /** The bot lacks a permission (Missing Permissions, 50013). */
  | { status: 403 }
  /** The token is not a valid bot token (401: Unauthorized). */
  | { status: 401 }
  /** `afterApplying`: the request takes effect, but the answer is lost (the client sees a 500). */
  | { status: 500; afterApplying: true }
  | { status: 429; retryAfterSeconds: number; global?: boolean }
  /** The request is read and never answered, until the client gives up on it. */
  | { status: 'silent' };

/**
 * A local Discord REST API on 127.0.0.1 (channel messages, interaction
 * callbacks, follow-up messages and edits of an interaction's response over
 * its token's webhook, JSON or multipart with files, command registration,
 * GET /gateway/bot) that records every call
 * and keeps the messages; it can be told to answer 500, or 429 with
 * Discord's rate-limit headers and body, for a while. It also plays
 * Discord's part for HTTP interactions: it holds an Ed25519 key pair and
 * signs what it sends.
 */
export interface FakeDiscord {
  url: string;
  /** The base for DISCORD_API_URL (the REST client appends /v10). */
  apiUrl: string;
  /** The application's public key, 64 hex digits, for DISCORD_PUBLIC_KEY. */
  publicKey: string;
  calls: DiscordCall[];
  /** Messages by id, in posting order. */
  messages: Map<string, DiscordMessageRecord>;
  /** Channels the bot created, in order. */
  channels: DiscordChannelRecord[];
  /** A member writes a message in a channel; its id. */
  say(channelId: string, authorId: string, content: string): string;
  /** Messages of one channel that were not deleted, in posting order. */
  channel(channelId: string): DiscordMessageRecord[];
  /** Calls answered with 2xx, optionally only those whose `METHOD path` matches. */
  ok(match?: RegExp): DiscordCall[];
  /** The next `count` calls (that match `when`; `body` is the parsed JSON or payload_json) get this failure. */
  failNext(count: number, failure: FakeFailure, when?: (call: { method: string; path: string; body: any }) => boolean): void;
  heal(): void;
  /** Requests the client gave up on (closed) while they went unanswered. */
  abandoned: number;
  /** As if a user deleted the message in Discord. */
  deleteMessage(id: string): void;
  /** What GET /gateway/bot answers. */
  gatewayUrl: string | null;
  /** The signature Discord would send for this body at this timestamp (unix seconds). */
  sign(timestamp: string, body: string): string;
  /** Discord has sent this interaction (over the gateway): its token's webhook takes follow-ups once it is answered. */
  sent(interaction: unknown): void;
  /** POSTs a signed interaction to statusbot, as Discord does. */
  interact(url: string, interaction: unknown, options: { now: Date; signature?: string | null; timestamp?: string }): Promise<{ status: number; body: any }>;
  waitFor<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const VERSIONED = /^\/api\/v10(\/.*)$/;
let nextSnowflake = 1_300_000_000_000_000_000n;
const snowflake = () => String(nextSnowflake++);

export async function startFakeDiscord(): Promise<FakeDiscord> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicHex = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex');
  const calls: DiscordCall[] = [];
  const messages = new Map<string, DiscordMessageRecord>();
  const channels: DiscordChannelRecord[] = [];
  const failures: { failure: FakeFailure; when?: (call: { method: string; path: string; body: any }) => boolean }[] = [];
  const interactions = new Map<string, SentInteraction>();

  function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
    const payload = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) });
    res.end(payload);
    return status;
  }

  const bucketHeaders = { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset-after': '1', 'x-ratelimit-bucket': 'fake' };

  const messageJson = (m: DiscordMessageRecord) => ({
    id: m.id,
    channel_id: m.channelId,
    type: m.replyTo ? 19 : 0,
    content: m.body.content ?? '',
    author: {
      id: m.authorId ?? FAKE_BOT_USER_ID,
      username: m.authorId ? `member-${m.authorId}` : 'statusbot',
      discriminator: '0',
      global_name: null,
      avatar: null,
    },
    embeds: m.body.embeds ?? [],
    attachments: [],
    components: m.body.components ?? [],
    ...(m.replyTo ? { message_reference: { message_id: m.replyTo, channel_id: m.channelId } } : {}),
    ...(m.nonce ? { nonce: m.nonce } : {}),
  });

  /** Carries out a request; returns the status and body a healthy Discord would answer. */
  function apply(method: string, path: string, body: any, files: DiscordFileRecord[] = []): { status: number; body: unknown } {
    const webhook = /^\/webhooks\/(\d+)\/([^/]+)(\/messages\/(?:@|%40)original)?$/.exec(path);
    if (webhook && (method === 'POST' || (method === 'PATCH' && webhook[3]))) {
      const sent = interactions.get(webhook[2]!);
      // The token's webhook exists once the interaction was answered, for the application it was sent to.
      if (!sent || sent.responseType === null || sent.applicationId !== webhook[1]) return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
      // Each file part is named by an attachment of the payload: files[n] by the attachment with id n.
      const attachments: { id: number | string; filename?: string }[] = body?.attachments ?? [];
      for (const f of files) {
        const n = /^files\[(\d+)\]$/.exec(f.field)?.[1];
        if (n === undefined || !attachments.some((a) => String(a.id) === n)) return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
      }
      const content = { ...body, attachments: files.map((f, i) => ({ id: String(i), filename: f.filename, size: Buffer.byteLength(f.content) })) };
      const original = sent.originalId ? messages.get(sent.originalId) : undefined;
      if (method === 'PATCH' && original) {
        original.body = { ...original.body, ...content };
        if (files.length) original.files = files;
        original.edits++;
        return { status: 200, body: messageJson(original) };
      }
      const record: DiscordMessageRecord = {
        id: snowflake(),
        channelId: sent.channelId,
        body: content,
        replyTo: null,
        nonce: null,
        edits: 0,
        deleted: false,
        interactionToken: webhook[2]!,
        ...(files.length ? { files } : {}),
      };
      messages.set(record.id, record);
      // A deferred response is shown as "thinking" until the first follow-up (or an edit) fills it.
      if (!sent.originalId && sent.responseType === 5) sent.originalId = record.id;
      return { status: 200, body: messageJson(record) };
    }
    const posted = method === 'POST' ? /^\/channels\/(\d+)\/messages$/.exec(path) : null;
    if (posted) {
      const m = posted;
      const channelId = m[1]!;
      const nonce = body?.nonce === undefined ? null : String(body.nonce);
      if (nonce && body.enforce_nonce) {
        const same = [...messages.values()].find((x) => x.channelId === channelId && x.nonce === nonce);
        if (same) return { status: 200, body: messageJson(same) };
      }
      const record: DiscordMessageRecord = {
        id: snowflake(),
        channelId,
        body,
        replyTo: body?.message_reference?.message_id ?? null,
        nonce,
        edits: 0,
        deleted: false,
      };
      messages.set(record.id, record);
      return { status: 200, body: messageJson(record) };
    }
    const patched = method === 'PATCH' ? /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path) : null;
    if (patched) {
      const m = patched;
      const record = messages.get(m[2]!);
      if (!record || record.deleted || record.channelId !== m[1]) return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
      record.body = { ...record.body, ...body };
      record.edits++;
      return { status: 200, body: messageJson(record) };
    }
    const created = method === 'POST' ? /^\/guilds\/(\d+)\/channels$/.exec(path) : null;
    if (created) {
      const name = String(body?.name ?? '');
      if (!/^[a-z0-9_-]{1,100}$/.test(name)) return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
      const channel: DiscordChannelRecord = { id: snowflake(), guildId: created[1]!, name, members: [] };
      channels.push(channel);
      return {
        status: 201,
        body: { id: channel.id, type: body.type ?? 0, guild_id: channel.guildId, name, position: channels.length, permission_overwrites: [] },
      };
    }
    const overwrite = method === 'PUT' ? /^\/channels\/(\d+)\/permissions\/(\d+)$/.exec(path) : null;
    if (overwrite) {
      const channel = channels.find((c) => c.id === overwrite[1]);
      if (!channel) return { status: 404, body: { message: 'Unknown Channel', code: 10003 } };
      if (body?.type === 1 && !channel.members.includes(overwrite[2]!)) channel.members.push(overwrite[2]!);
      return { status: 204, body: undefined };
    }
    const fetched = method === 'GET' ? /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path) : null;
    if (fetched) {
      const record = messages.get(fetched[2]!);
      if (!record || record.deleted || record.channelId !== fetched[1]) return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
      return { status: 200, body: messageJson(record) };
    }
    const callback = method === 'POST' ? /^\/interactions\/\d+\/([^/]+)\/callback$/.exec(path) : null;
    if (callback) {
      const sent = interactions.get(callback[1]!);
      if (sent) sent.responseType = Number(body?.type ?? 0);
      return { status: 204, body: undefined };
    }
    const registered = method === 'PUT' ? /^\/applications\/(\d+)(?:\/guilds\/\d+)?\/commands$/.exec(path) : null;
    if (registered) {
      const m = registered;
      const list = Array.isArray(body) ? body : [];
      return { status: 200, body: list.map((c: object) => ({ ...c, id: snowflake(), application_id: m[1], version: snowflake() })) };
    }
    if (method === 'GET' && path === '/gateway/bot') {
      return {
        status: 200,
        body: { url: fake.gatewayUrl, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } },
      };
    }
    return { status: 404, body: { message: '404: Not Found', code: 0 } };
  }

  function handle(req: IncomingMessage, res: ServerResponse, body: any, files: DiscordFileRecord[]): { status: number; retryAfterSeconds?: number } {
    const method = req.method ?? 'GET';
    const route = VERSIONED.exec((req.url ?? '/').split('?')[0]!);
    if (!route) return { status: json(res, 404, { message: '404: Not Found', code: 0 }) };
    const path = route[1]!;
    const i = failures.findIndex((f) => !f.when || f.when({ method, path, body }));
    const failure = i === -1 ? undefined : failures.splice(i, 1)[0]!.failure;
    if (failure?.status === 429) {
      const retryAfter = String(failure.retryAfterSeconds);
      const status = json(
        res,
        429,
        { message: 'You are being rate limited.', retry_after: failure.retryAfterSeconds, global: failure.global ?? false },
        {
          'retry-after': retryAfter,
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset-after': retryAfter,
          'x-ratelimit-bucket': 'fake',
          'x-ratelimit-scope': failure.global ? 'global' : 'user',
          ...(failure.global ? { 'x-ratelimit-global': 'true' } : {}),
        },
      );
      return { status, retryAfterSeconds: failure.retryAfterSeconds };
    }
    if (failure?.status === 'silent') {
      res.on('close', () => {
        if (!res.writableEnded) fake.abandoned++;
      });
      return { status: 0 };
    }
    if (failure?.status === 403) return { status: json(res, 403, { message: 'Missing Permissions', code: 50013 }) };
    if (failure?.status === 401) return { status: json(res, 401, { message: '401: Unauthorized', code: 0 }) };
    if (failure?.status === 500) {
      if ('afterApplying' in failure) apply(method, path, body, files);
      return { status: json(res, 500, { message: 'Internal Server Error', code: 0 }) };
    }
    const answer = apply(method, path, body, files);
    return { status: json(res, answer.status, answer.body, bucketHeaders) };
  }

  /** A JSON body, or a multipart one: its `payload_json` and its file parts. */
  async function parse(raw: Buffer, contentType: string | undefined): Promise<{ body: any; files: DiscordFileRecord[] }> {
    if (!contentType?.startsWith('multipart/form-data')) return { body: raw.length ? JSON.parse(raw.toString('utf8')) : undefined, files: [] };
    const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
    let body: any;
    const parts: { field: string; file: File }[] = [];
    form.forEach((value, field) => {
      if (typeof value === 'string') {
        if (field === 'payload_json') body = JSON.parse(value);
      } else parts.push({ field, file: value });
    });
    const files = await Promise.all(
      parts.map(async ({ field, file }) => ({
        field,
        filename: file.name,
        contentType: file.type,
        content: Buffer.from(await file.arrayBuffer()).toString('utf8'),
      })),
    );
    return { body, files };
  }

  /** Discord answers a follow-up once it has the interaction's response; a follow-up sent on its heels waits for it. */
  async function acknowledged(path: string): Promise<void> {
    const token = /^\/api\/v10\/webhooks\/\d+\/([^/]+)/.exec(path)?.[1];
    const sent = token ? interactions.get(token) : undefined;
    if (!sent || sent.responseType !== null) return;
    await waitUntil(() => sent.responseType !== null, { timeoutMs: 3_000, what: 'the response of the interaction' }).catch(() => undefined);
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const { body, files } = await parse(Buffer.concat(chunks), req.headers['content-type']);
        await acknowledged((req.url ?? '/').split('?')[0]!);
        const answered = handle(req, res, body, files);
        const route = VERSIONED.exec((req.url ?? '/').split('?')[0]!);
        calls.push({
          method: req.method ?? 'GET',
          path: route ? route[1]! : (req.url ?? '/'),
          body,
          ...(files.length ? { files } : {}),
          headers: req.headers,
          ...answered,
          at: Date.now(),
        });
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const fake: FakeDiscord = {
    url,
    apiUrl: `${url}/api`,
    publicKey: publicHex,
    calls,
    messages,
    channels,
    say(channelId, authorId, content) {
      const record: DiscordMessageRecord = { id: snowflake(), channelId, body: { content }, replyTo: null, nonce: null, edits: 0, deleted: false, authorId };
      messages.set(record.id, record);
      return record.id;
    },
    gatewayUrl: null,
    abandoned: 0,
    channel: (channelId) => [...messages.values()].filter((m) => m.channelId === channelId && !m.deleted),
    ok: (match) => calls.filter((c) => c.status < 300 && (!match || match.test(`${c.method} ${c.path}`))),
    failNext(count, failure, when) {
      for (let i = 0; i < count; i++) failures.push({ failure, ...(when ? { when } : {}) });
    },
    heal() {
      failures.length = 0;
    },
    deleteMessage(id) {
      const m = messages.get(id);
      if (m) m.deleted = true;
    },
    sent(interaction) {
      const sent = interaction as { token?: unknown; application_id?: unknown; channel_id?: unknown; channel?: { id?: unknown } };
      if (typeof sent.token !== 'string') return;
      interactions.set(sent.token, {
        applicationId: String(sent.application_id),
        channelId: String(sent.channel?.id ?? sent.channel_id),
        responseType: null,
        originalId: null,
      });
    },
    sign: (timestamp, body) => sign(null, Buffer.from(timestamp + body), privateKey).toString('hex'),
    async interact(target, interaction, options) {
      const body = JSON.stringify(interaction);
      const timestamp = options.timestamp ?? String(Math.floor(options.now.getTime() / 1000));
      const signature = options.signature === undefined ? fake.sign(timestamp, body) : options.signature;
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-signature-timestamp': timestamp };
      if (signature !== null) headers['x-signature-ed25519'] = signature;
      fake.sent(interaction);
      const token = (interaction as { token?: unknown }).token;
      const res = await fetch(`${target}/discord/interactions`, { method: 'POST', headers, body });
      const text = await res.text();
      const answer = text ? JSON.parse(text) : undefined;
      if (typeof token === 'string' && res.status === 200 && typeof answer?.type === 'number') interactions.get(token)!.responseType = answer.type;
      return { status: res.status, body: answer };
    },
    waitFor: (probe, timeoutMs) => waitUntil(probe, { timeoutMs, what: 'a condition on the fake Discord' }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return fake;
}
