import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyForWorkspace, linkWorkspace } from '../../src/domain/chat/chat-links.js';
import { listChannelSubscriptions, subscribeChannel, unsubscribeChannel } from '../../src/domain/chat/subscriptions.js';
import { authenticate } from '../../src/domain/companies/api-keys.js';
import { DomainError } from '../../src/domain/errors.js';
import type { Announcement } from '../../src/domain/notifications/announcement.js';
import { ACME_BOARD, ACME_KEY, GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const CONFIG = `
public_url: http://status.test
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    boards:
      - { id: ${ACME_BOARD}, name: Vendors, urlname: vendors, services: [{ urlname: demo-service }] }
    slack: { team_id: T-ACME }
    discord: { guild_id: "111" }
    channels:
      - slack: C-INC
        incidents: true
        services: [acme-api]
      - discord: "222"
        incidents: true
        boards:
          - { board: vendors, schedule: "30 8 * * *", timezone: Europe/Berlin, only_on_change: true, edit_in_place: true }
  - name: Globex
    plan: business
    api_keys: ["${GLOBEX_KEY}"]
    custom_services:
      - { id: 2001, name: Globex API, urlname: globex-api }
`;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ config: CONFIG });
});
afterAll(async () => {
  await s.stop();
});

const slack = (channelId: string) => ({ platform: 'slack' as const, workspaceId: 'T-ACME', channelId });

describe('workspace links', () => {
  it('come from the config and from an API key', async () => {
    expect((await companyForWorkspace(s.ctx, 'slack', 'T-ACME'))?.name).toBe('Acme');
    expect((await companyForWorkspace(s.ctx, 'discord', '111'))?.name).toBe('Acme');
    expect(await companyForWorkspace(s.ctx, 'slack', 'T-NEW')).toBeNull();
    const company = await linkWorkspace(s.ctx, 'slack', 'T-NEW', ` ${GLOBEX_KEY} `);
    expect(company.name).toBe('Globex');
    expect((await companyForWorkspace(s.ctx, 'slack', 'T-NEW'))?.name).toBe('Globex');
  });

  it('refuse a wrong key and change nothing', async () => {
    await expect(linkWorkspace(s.ctx, 'slack', 'T-OTHER', 'not-a-key')).rejects.toMatchObject({ code: 'unauthorized' });
    expect(await companyForWorkspace(s.ctx, 'slack', 'T-OTHER')).toBeNull();
  });
});

describe('channel subscriptions', () => {
  it('list what the config declared', async () => {
    const acme = await authenticate(s.ctx, ACME_KEY);
    const subs = await listChannelSubscriptions(s.ctx, acme, slack('C-INC'));
    expect(subs.map((x) => [x.kind, x.service?.urlname ?? null])).toEqual([
      ['incidents', null],
      ['service', 'acme-api'],
    ]);
    const discord = await listChannelSubscriptions(s.ctx, acme, { platform: 'discord', workspaceId: '111', channelId: '222' });
    expect(discord.find((x) => x.kind === 'board')?.digest).toEqual({
      schedule: '30 8 * * *',
      timezone: 'Europe/Berlin',
      onlyOnChange: true,
      editInPlace: true,
    });
  });

  it('subscribe to services and boards with defaults, update settings on repeat, and unsubscribe', async () => {
    const acme = await authenticate(s.ctx, ACME_KEY);
    const channel = slack('C-NEW');
    const service = await subscribeChannel(s.ctx, acme, channel, { target: 'service', service: 'demo-service' });
    expect(service).toMatchObject({ kind: 'service', service: { urlname: 'demo-service' }, digest: null });
    const board = await subscribeChannel(s.ctx, acme, channel, { target: 'board', board: 'vendors' });
    expect(board.digest).toEqual({ schedule: '0 9 * * 1-5', timezone: 'UTC', onlyOnChange: false, editInPlace: false });
    const again = await subscribeChannel(s.ctx, acme, channel, { target: 'board', board: board.board!.id, edit_in_place: true });
    expect(again.id).toBe(board.id);
    expect(again.digest?.editInPlace).toBe(true);
    await unsubscribeChannel(s.ctx, acme, channel, { target: 'service', service: 'demo-service' });
    expect((await listChannelSubscriptions(s.ctx, acme, channel)).map((x) => x.kind)).toEqual(['board']);
    await expect(unsubscribeChannel(s.ctx, acme, channel, { target: 'incidents' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reject bad input naming the field, and targets the company cannot see', async () => {
    const acme = await authenticate(s.ctx, ACME_KEY);
    const channel = slack('C-BAD');
    const cases: [unknown, string][] = [
      [{ target: 'everything' }, 'target must be one of incidents, service, monitor, board'],
      [{ target: 'board', board: 'vendors', schedule: 'every day' }, 'schedule must be a cron expression'],
      [{ target: 'board', board: 'vendors', timezone: 'Mars/Olympus' }, 'timezone must be an IANA time zone'],
    ];
    for (const [input, message] of cases) {
      const error = await subscribeChannel(s.ctx, acme, channel, input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('invalid_input');
      expect((error as DomainError).message).toContain(message);
    }
    await expect(subscribeChannel(s.ctx, acme, channel, { target: 'service', service: 'globex-api' })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await listChannelSubscriptions(s.ctx, acme, channel)).toEqual([]);
  });

  it('keep a channel to one company', async () => {
    const globex = await authenticate(s.ctx, GLOBEX_KEY);
    await expect(subscribeChannel(s.ctx, globex, slack('C-INC'), { target: 'incidents' })).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('announcements in the outbox', () => {
  it('queue one row per following channel for each incident change, and a status change where the status moved', async () => {
    const before = await s.ctx.db.selectFrom('outbox').select('id').execute();
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Errors', status: 'major' } });
    const id = Number(created.body.data.id);
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { title: 'Errors on login' } });
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Fixed', resolution_stage: 'resolved' } });
    const rows = await s.ctx.db
      .selectFrom('outbox')
      .select(['stream', 'event', 'payload'])
      .where('id', 'not in', before.length ? before.map((r) => r.id) : [0])
      .orderBy('id')
      .execute();
    const summary = rows.map((r) => [r.stream, r.event]);
    expect(summary).toEqual([
      ['slack:T-ACME:C-INC', 'incident.created'],
      ['discord:111:222', 'incident.created'],
      ['slack:T-ACME:C-INC', 'service.status_changed'],
      ['slack:T-ACME:C-INC', 'incident.updated'],
      ['discord:111:222', 'incident.updated'],
      ['slack:T-ACME:C-INC', 'incident.resolved'],
      ['discord:111:222', 'incident.resolved'],
      ['slack:T-ACME:C-INC', 'service.status_changed'],
    ]);
    const payloads = rows.map((r) => JSON.parse(r.payload) as Announcement);
    expect(payloads[0]).toMatchObject({
      kind: 'incident',
      event: 'created',
      channel: { platform: 'slack', workspaceId: 'T-ACME', channelId: 'C-INC' },
      incident: { id, title: 'Errors', severity: 'major', resolved: false, stage: 'investigating', service: { urlname: 'acme-api' } },
      update: { stage: 'investigating', description: '' },
    });
    expect(payloads[2]).toMatchObject({ kind: 'status_change', from: 'ok', to: 'major', cause: 'Errors', service: { urlname: 'acme-api' } });
    // A title change posts no update to the thread.
    expect(payloads[3]).toMatchObject({ kind: 'incident', event: 'updated', update: null, incident: { title: 'Errors on login' } });
    expect(payloads[5]).toMatchObject({ kind: 'incident', event: 'resolved', update: { stage: 'resolved', description: 'Fixed' } });
    expect(payloads[7]).toMatchObject({ kind: 'status_change', from: 'major', to: 'ok' });
  });
});
