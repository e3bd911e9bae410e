import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import { waitUntil } from '../helpers/wait-until.js';

export const FAKE_BOT_TOKEN = 'xoxb-fake-bot-token';
export const FAKE_APP_TOKEN = 'xapp-fake-app-token';

/** One request that reached the fake, with its body parsed (form fields holding JSON are decoded). */
export interface SlackCall {
  /** A Web API method such as `chat.postMessage`, or `response_url` for a respond. */
  method: string;
  path: string;
  body: Record<string, any>;
  headers: IncomingHttpHeaders;
  /** The HTTP status the fake answered with. */
  status: number;
  /** The Web API's `ok`, or the platform error the fake answered. */
  ok: boolean;
  error?: string;
  /** The Retry-After of a 429, in seconds. */
  retryAfterSeconds?: number;
  at: number;
}

export interface SlackMessageRecord {
  channel: string;
  ts: string;
  threadTs: string | null;
  text: string;
  blocks: any[] | undefined;
  edits: number;
  /** The member who wrote it; absent for the bot's own. */
  user?: string;
  /** The ids of the files it shares (files.completeUploadExternal). */
  files?: string[];
}

/** A file shared in a channel: uploaded to its upload URL, then completed (files.uploadV2's three steps). */
export interface SlackFileRecord {
  id: string;
  channel: string;
  filename: string;
  title: string;
  /** The bytes that reached the upload URL, as UTF-8. */
  content: string;
  initialComment: string | null;
  /** The message that shares it. */
  ts: string;
}

/** A channel opened with conversations.create, and who is in it. */
export interface SlackChannelRecord {
  id: string;
  name: string;
  members: string[];
}

/** `error`: the Web API's refusal (HTTP 200, ok: false), such as name_taken. */
export type FakeFailure = { status: 500 } | { status: 429; retryAfterSeconds: number } | { status: 200; error: string };

/** Slack's side of Socket Mode: envelopes go to the connected app, acks come back. */
export interface FakeSocket {
  /** Resolves once an app connected (after apps.connections.open) and was sent its hello. */
  connected(): Promise<void>;
  /** Sends an envelope and resolves with the app's ack for it. */
  send(type: 'slash_commands' | 'interactive', payload: Record<string, unknown>): Promise<{ envelope_id: string; payload?: any }>;
}

/**
 * A local Slack Web API (auth.test, chat.postMessage, chat.update,
 * chat.postEphemeral, users.info, views.open, apps.connections.open, the
 * external file upload: files.getUploadURLExternal, the upload URL it hands
 * out, files.completeUploadExternal), a Socket Mode
 * WebSocket, and a response_url endpoint on 127.0.0.1. It
 * records every call and keeps the messages it was asked to post, and can be
 * told to answer 500 or 429 for a while.
 */
export interface FakeSlack {
  url: string;
  /** The Web API base for SLACK_API_URL. */
  apiUrl: string;
  calls: SlackCall[];
  /** Messages by channel, in posting order. */
  messages: Map<string, SlackMessageRecord[]>;
  /** Channels opened by the app, in order. */
  channels: SlackChannelRecord[];
  /** Files shared in channels, in order. */
  files: SlackFileRecord[];
  /** A member writes a message in a channel (in a thread, with `threadTs`); its ts. */
  say(channel: string, user: string, text: string, threadTs?: string): string;
  socket: FakeSocket;
  /** A response_url that records what is posted to it. */
  responseUrl(name?: string): string;
  /** Calls answered successfully, optionally of one method. */
  ok(method?: string): SlackCall[];
  /** The next `count` Web API calls (that match `when`) get this failure instead of an answer. */
  failNext(count: number, failure: FakeFailure, when?: (call: { method: string; body: Record<string, any> }) => boolean): void;
  /** Stops all injected failures. */
  heal(): void;
  /** The workspace's members as users.info answers; UALICE is an admin, UBOB a plain member. */
  users: Map<string, { is_admin?: boolean; is_owner?: boolean; is_primary_owner?: boolean }>;
  /** Answers a method only after `ms` (0 to stop). */
  slowDown(method: string, ms: number): void;
  /** Polls until the probe (which may be async) gives a truthy value. */
  waitFor<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const JSON_FIELDS = new Set(['blocks', 'attachments', 'view', 'metadata', 'files']);

function parseBody(raw: string, contentType: string | undefined): Record<string, any> {
  if (!raw) return {};
  if (contentType?.startsWith('application/json')) return JSON.parse(raw) as Record<string, any>;
  const form = parseQuery(raw) as Record<string, any>;
  for (const key of Object.keys(form)) {
    if (JSON_FIELDS.has(key) && typeof form[key] === 'string') form[key] = JSON.parse(form[key] as string);
  }
  return form;
}

export async function startFakeSlack(options: { token?: string; appToken?: string; teamId?: string } = {}): Promise<FakeSlack> {
  const token = options.token ?? FAKE_BOT_TOKEN;
  const appToken = options.appToken ?? FAKE_APP_TOKEN;
  const calls: SlackCall[] = [];
  const messages = new Map<string, SlackMessageRecord[]>();
  const channels: SlackChannelRecord[] = [];
  const files: SlackFileRecord[] = [];
  /** Uploads asked for with files.getUploadURLExternal, by file id; `content` once the bytes arrived. */
  const uploads = new Map<string, { filename: string; length: number; content: Buffer | null; completed: boolean }>();
  let failures: { failure: FakeFailure; when: ((c: { method: string; body: Record<string, any> }) => boolean) | undefined }[] = [];
  let clock = 0;
  const delays = new Map<string, number>();
  const users = new Map<string, { is_admin?: boolean; is_owner?: boolean; is_primary_owner?: boolean }>([
    ['UALICE', { is_admin: true }],
    ['UBOB', {}],
  ]);
  let views = 0;
  const nextTs = () => `1700000000.${String(++clock).padStart(6, '0')}`;

  function find(channel: string, ts: string): SlackMessageRecord | undefined {
    return messages.get(channel)?.find((m) => m.ts === ts);
  }

  function webApi(method: string, body: Record<string, any>, headers: IncomingHttpHeaders): Record<string, unknown> {
    const auth = headers.authorization ?? (body.token ? `Bearer ${body.token}` : undefined);
    if (method === 'apps.connections.open') {
      if (auth !== `Bearer ${appToken}`) return { ok: false, error: 'invalid_auth' };
      return { ok: true, url: `${url.replace(/^http/, 'ws')}/socket` };
    }
    if (auth !== `Bearer ${token}`) return { ok: false, error: 'invalid_auth' };
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://fake.slack.test/',
          team: 'Fake',
          user: 'statusbot',
          team_id: options.teamId ?? 'TFAKE',
          user_id: 'UBOT',
          bot_id: 'BBOT',
        };
      case 'chat.postMessage': {
        if (!body.channel) return { ok: false, error: 'channel_not_found' };
        if (!body.text && !body.blocks) return { ok: false, error: 'no_text' };
        const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : null;
        if (threadTs && !find(body.channel, threadTs)) return { ok: false, error: 'thread_not_found' };
        const record: SlackMessageRecord = { channel: body.channel, ts: nextTs(), threadTs, text: body.text ?? '', blocks: body.blocks, edits: 0 };
        messages.set(body.channel, [...(messages.get(body.channel) ?? []), record]);
        return { ok: true, channel: body.channel, ts: record.ts, message: { text: record.text, ts: record.ts } };
      }
      case 'chat.update': {
        const record = find(body.channel, body.ts);
        if (!record) return { ok: false, error: 'message_not_found' };
        record.text = body.text ?? record.text;
        record.blocks = body.blocks ?? record.blocks;
        record.edits++;
        return { ok: true, channel: body.channel, ts: record.ts, text: record.text };
      }
      case 'conversations.create': {
        const name = String(body.name ?? '');
        if (!/^[a-z0-9_-]{1,80}$/.test(name)) return { ok: false, error: 'invalid_name_specials' };
        if (channels.some((c) => c.name === name)) return { ok: false, error: 'name_taken' };
        const channel: SlackChannelRecord = { id: `CROOM${channels.length + 1}`, name, members: ['UBOT'] };
        channels.push(channel);
        return { ok: true, channel: { id: channel.id, name, is_channel: true, is_private: body.is_private === true || body.is_private === 'true' } };
      }
      case 'conversations.invite': {
        const channel = channels.find((c) => c.id === body.channel);
        if (!channel) return { ok: false, error: 'channel_not_found' };
        const users = String(body.users ?? '')
          .split(',')
          .filter(Boolean);
        const fresh = users.filter((u) => !channel.members.includes(u));
        if (fresh.length === 0) return { ok: false, error: 'already_in_channel' };
        channel.members.push(...fresh);
        return { ok: true, channel: { id: channel.id, name: channel.name } };
      }
      case 'conversations.history': {
        // The channel's own messages: replies in threads are read with conversations.replies.
        const found = (messages.get(String(body.channel)) ?? []).filter((m) => m.ts === body.latest && m.threadTs === null);
        return {
          ok: true,
          messages: found.map((m) => ({ type: 'message', ts: m.ts, text: m.text, ...(m.user ? { user: m.user } : { bot_id: 'BBOT' }) })),
          has_more: false,
        };
      }
      case 'conversations.replies': {
        const all = messages.get(String(body.channel)) ?? [];
        const found = all.find((m) => m.ts === body.ts);
        if (!found) return { ok: false, error: 'thread_not_found' };
        const parent = found.threadTs ?? found.ts;
        const thread = all.filter((m) => m.ts === parent || m.threadTs === parent).filter((m) => !body.latest || m.ts === body.latest);
        return {
          ok: true,
          messages: thread.map((m) => ({ type: 'message', ts: m.ts, text: m.text, ...(m.user ? { user: m.user } : { bot_id: 'BBOT' }) })),
          has_more: false,
        };
      }
      case 'users.info': {
        const user = users.get(String(body.user));
        if (!user) return { ok: false, error: 'user_not_found' };
        return { ok: true, user: { id: body.user, name: String(body.user).toLowerCase(), is_admin: false, is_owner: false, is_primary_owner: false, ...user } };
      }
      case 'files.getUploadURLExternal': {
        const length = Number(body.length);
        if (!body.filename || !Number.isSafeInteger(length) || length <= 0) return { ok: false, error: 'missing_argument' };
        const fileId = `F${String(uploads.size + 1).padStart(8, '0')}`;
        uploads.set(fileId, { filename: String(body.filename), length, content: null, completed: false });
        return { ok: true, upload_url: `${url}/upload/${fileId}`, file_id: fileId };
      }
      case 'files.completeUploadExternal': {
        const listed: { id?: string; title?: string }[] = Array.isArray(body.files) ? body.files : [];
        if (listed.length === 0) return { ok: false, error: 'invalid_arguments' };
        // Every file must have been uploaded in full, and be completed once.
        if (listed.some((f) => !uploads.get(String(f.id))?.content || uploads.get(String(f.id))!.completed)) return { ok: false, error: 'file_not_found' };
        const channel = typeof body.channel_id === 'string' ? body.channel_id : null;
        const comment = typeof body.initial_comment === 'string' ? body.initial_comment : null;
        let ts = '';
        if (channel) {
          const record: SlackMessageRecord = {
            channel,
            ts: nextTs(),
            threadTs: typeof body.thread_ts === 'string' ? body.thread_ts : null,
            text: comment ?? '',
            blocks: undefined,
            edits: 0,
            files: listed.map((f) => String(f.id)),
          };
          messages.set(channel, [...(messages.get(channel) ?? []), record]);
          ts = record.ts;
        }
        for (const f of listed) {
          const upload = uploads.get(String(f.id))!;
          upload.completed = true;
          if (channel) {
            files.push({
              id: String(f.id),
              channel,
              filename: upload.filename,
              title: f.title ?? upload.filename,
              content: upload.content!.toString('utf8'),
              initialComment: comment,
              ts,
            });
          }
        }
        return { ok: true, files: listed.map((f) => ({ id: f.id, title: f.title ?? uploads.get(String(f.id))!.filename })) };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: nextTs() };
      case 'views.open':
        if (!body.trigger_id) return { ok: false, error: 'invalid_trigger_id' };
        if (!body.view?.type) return { ok: false, error: 'invalid_arguments' };
        return { ok: true, view: { ...body.view, id: `V${++views}` } };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  /**
   * The upload URL: the file's bytes, raw or as the one file of a multipart
   * form; 200 only when exactly the announced length arrived.
   */
  async function receiveUpload(fileId: string, raw: Buffer, contentType: string | undefined): Promise<{ status: number; text: string }> {
    const upload = uploads.get(fileId);
    if (!upload || upload.content) return { status: 404, text: 'not found' };
    let bytes = raw;
    if (contentType?.startsWith('multipart/form-data')) {
      const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
      const parts: File[] = [];
      form.forEach((v) => {
        if (typeof v !== 'string') parts.push(v);
      });
      if (parts.length !== 1) return { status: 400, text: 'one file expected' };
      bytes = Buffer.from(await parts[0]!.arrayBuffer());
    }
    if (bytes.length !== upload.length) return { status: 400, text: `expected ${upload.length} bytes, got ${bytes.length}` };
    upload.content = bytes;
    return { status: 200, text: `OK - ${bytes.length}` };
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (path.startsWith('/upload/')) {
        const raw = Buffer.concat(chunks);
        void receiveUpload(decodeURIComponent(path.slice('/upload/'.length)), raw, req.headers['content-type']).then(({ status, text }) => {
          calls.push({ method: 'upload', path, body: { length: raw.length }, headers: req.headers, status, ok: status === 200, at: Date.now() });
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(text);
        });
        return;
      }
      const body = parseBody(Buffer.concat(chunks).toString('utf8'), req.headers['content-type']);
      const record = (method: string, status: number, ok: boolean, error?: string, retryAfterSeconds?: number) =>
        calls.push({
          method,
          path,
          body,
          headers: req.headers,
          status,
          ok,
          ...(error ? { error } : {}),
          ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
          at: Date.now(),
        });

      if (path.startsWith('/respond/')) {
        record('response_url', 200, true);
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
        return;
      }
      if (!path.startsWith('/api/')) {
        res.writeHead(404);
        res.end();
        return;
      }
      const method = path.slice('/api/'.length);
      const i = failures.findIndex((f) => !f.when || f.when({ method, body }));
      if (i !== -1) {
        const { failure } = failures.splice(i, 1)[0]!;
        if (failure.status === 200) {
          record(method, 200, false, failure.error);
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ ok: false, error: failure.error }));
          return;
        }
        record(
          method,
          failure.status,
          false,
          failure.status === 429 ? 'ratelimited' : 'internal_error',
          failure.status === 429 ? failure.retryAfterSeconds : undefined,
        );
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (failure.status === 429) headers['retry-after'] = String(failure.retryAfterSeconds);
        res.writeHead(failure.status, headers);
        res.end(JSON.stringify({ ok: false, error: failure.status === 429 ? 'ratelimited' : 'internal_error' }));
        return;
      }
      const answer = webApi(method, body, req.headers);
      setTimeout(() => {
        record(method, 200, answer.ok === true, typeof answer.error === 'string' ? answer.error : undefined);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(answer));
      }, delays.get(method) ?? 0);
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  let app: WebSocket | null = null;
  let onConnect: () => void = () => {};
  const appConnected = new Promise<void>((resolve) => {
    onConnect = resolve;
  });
  const pendingAcks = new Map<string, (ack: { envelope_id: string; payload?: any }) => void>();
  let envelopes = 0;
  server.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/socket')) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      app = ws;
      ws.on('message', (data) => {
        const ack = JSON.parse(String(data)) as { envelope_id: string; payload?: any };
        calls.push({ method: 'socket_ack', path: '/socket', body: ack, headers: {}, status: 200, ok: true, at: Date.now() });
        pendingAcks.get(ack.envelope_id)?.(ack);
      });
      ws.send(JSON.stringify({ type: 'hello', num_connections: 1, debug_info: { host: 'fake' }, connection_info: { app_id: 'ASTATUSBOT' } }));
      onConnect();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    apiUrl: `${url}/api/`,
    calls,
    messages,
    channels,
    files,
    say(channel, user, text, threadTs) {
      const record: SlackMessageRecord = { channel, ts: nextTs(), threadTs: threadTs ?? null, text, blocks: undefined, edits: 0, user };
      messages.set(channel, [...(messages.get(channel) ?? []), record]);
      return record.ts;
    },
    socket: {
      connected: () => appConnected,
      send(type, payload) {
        if (!app) return Promise.reject(new Error('fake Slack: no app is connected over Socket Mode'));
        const envelopeId = `envelope-${++envelopes}`;
        const acked = new Promise<{ envelope_id: string; payload?: any }>((resolve) => pendingAcks.set(envelopeId, resolve));
        app.send(JSON.stringify({ envelope_id: envelopeId, type, payload, accepts_response_payload: true }));
        return acked;
      },
    },
    users,
    responseUrl: (name = 'r') => `${url}/respond/${encodeURIComponent(name)}`,
    ok: (method) => calls.filter((c) => c.ok && (method === undefined || c.method === method)),
    failNext(count, failure, when) {
      for (let i = 0; i < count; i++) failures.push({ failure, when });
    },
    heal() {
      failures = [];
    },
    slowDown(method, ms) {
      delays.set(method, ms);
    },
    waitFor: (probe, timeoutMs) => waitUntil(probe, { timeoutMs, what: 'a condition on the fake Slack' }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
