import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { companyForWorkspace } from '../../src/domain/chat/chat-links.js';
import type { ChatHarness } from '../helpers/chat.js';
import { PLATFORMS } from '../helpers/platforms.js';
import { ACME_BOARD, ACME_KEY, GLOBEX_KEY } from '../helpers/test-server.js';

/** Each verb, the same scenario on every platform, through the real Bolt app and the real Discord handler. */
describe.each(PLATFORMS)('$platform', ({ platform, start }) => {
  let h: ChatHarness;
  beforeAll(async () => {
    h = await start();
  });
  afterAll(async () => {
    await h?.stop();
  });

  const LINK = platform === 'slack' ? '/statusbot link <api-key>' : '/statusbot link key:<api-key>';
  const STATUS = platform === 'slack' ? '/service' : '/status';
  /** Who may link and subscribe, as each platform's refusal names them. */
  const MAY_LINK = platform === 'slack' ? 'workspace admins and owners' : 'Manage Server';
  const MAY_SUBSCRIBE = platform === 'slack' ? 'workspace admins and owners' : 'Manage Channels';
  const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  const count = async (table: 'incidents' | 'incident_updates' | 'chat_links' | 'channel_subscriptions') =>
    Number(
      (
        await h.s.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function createIncident(body: Record<string, unknown>, key = ACME_KEY) {
    const res = await h.s.api('POST', '/api/v2/incidents', { key, body });
    expect(res.status, res.text).toBe(201);
    return Number(res.body.data.id);
  }

  const attributes = async (id: number) => (await h.s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes;

  describe('an unlinked workspace', () => {
    const where = { workspace: 'unlinked' };

    it('gets one ephemeral line on how to link for every command but help and link, and no form', async () => {
      for (const ask of [
        { verb: 'incident list' },
        { verb: 'incident new' },
        { verb: 'incident show', id: 1 },
        { verb: 'status', service: 'acme-api' },
        { verb: 'subscriptions' },
        { verb: 'subscribe', target: 'incidents' },
        { verb: 'report', service: 'acme-cloud' },
      ] as const) {
        const answer = await h.ask(ask, where);
        expect(answer.ephemeral).toBe(true);
        expect(answer.form).toBeNull();
        expect(answer.text).toMatch(new RegExp(`not linked to a statusbot company yet: run ${escapeRegExp(h.code(LINK))}`));
        expect(answer.text.split('\n')).toHaveLength(1);
      }
    });

    it('gets help, naming every verb and who may link', async () => {
      const answer = await h.ask({ verb: 'help' }, where);
      expect(answer.ephemeral).toBe(true);
      for (const verb of ['/incident new', '/incident resolve', STATUS, '/statusbot report', '/statusbot subscribe', '/statusbot link']) {
        expect(answer.text).toContain(verb);
      }
      expect(answer.text).toContain(MAY_LINK);
    });

    it('a button on an incident message only says how to link, and opens no form', async () => {
      const answer = await h.click(1, 'resolve', where);
      expect(answer.form).toBeNull();
      expect(answer.text).toMatch(/not linked/);
    });
  });

  describe('/statusbot link', () => {
    it('refuses a wrong key ephemerally, without echoing or logging it, and links nothing', async () => {
      const secret = 'wrong-key-0123456789';
      const logs = [vi.spyOn(console, 'log'), vi.spyOn(console, 'error'), vi.spyOn(console, 'info')];
      try {
        const answer = await h.ask({ verb: 'link', key: secret }, { workspace: 'new' });
        expect(answer.ephemeral).toBe(true);
        expect(answer.text).toMatch(/not valid/);
        expect(answer.text).not.toContain(secret);
        for (const spy of logs) expect(JSON.stringify(spy.mock.calls)).not.toContain(secret);
      } finally {
        for (const spy of logs) spy.mockRestore();
      }
      expect(await companyForWorkspace(h.s.ctx, platform, h.workspaceId('new'))).toBeNull();
    });

    it('refuses a member without the right to link, and links nothing', async () => {
      for (const member of ['member', 'channel-manager'] as const) {
        const answer = await h.ask({ verb: 'link', key: GLOBEX_KEY }, { workspace: 'new', member });
        expect(answer.text, member).toContain(MAY_LINK);
        expect(answer.text).not.toContain(GLOBEX_KEY);
      }
      expect(await companyForWorkspace(h.s.ctx, platform, h.workspaceId('new'))).toBeNull();
    });

    it("links the workspace to the key's company; the answer names the company, not the key", async () => {
      const log = vi.spyOn(console, 'log');
      try {
        const answer = await h.ask({ verb: 'link', key: ` ${GLOBEX_KEY} ` }, { workspace: 'new' });
        expect(answer.ephemeral).toBe(true);
        expect(answer.text).toContain('Globex');
        expect(JSON.stringify(answer.raw)).not.toContain(GLOBEX_KEY);
        expect(JSON.stringify(log.mock.calls)).not.toContain(GLOBEX_KEY);
      } finally {
        log.mockRestore();
      }
      expect((await companyForWorkspace(h.s.ctx, platform, h.workspaceId('new')))?.name).toBe('Globex');
      const list = await h.ask({ verb: 'incident list' }, { workspace: 'new' });
      expect(list.text).toContain('No open incidents.');
    });
  });

  describe('/statusbot subscribe | unsubscribe | subscriptions', () => {
    const where = { channel: 'subs' };
    const rows = () =>
      h.s.ctx.db
        .selectFrom('channel_subscriptions')
        .select(['kind', 'service_id', 'board_id', 'schedule', 'timezone', 'only_on_change', 'edit_in_place', 'workspace_id'])
        .where('channel_id', '=', h.channelId('subs'))
        .orderBy('id')
        .execute();

    it('subscribes the channel to incidents, a service and a board with digest settings, and lists them', async () => {
      expect((await h.ask({ verb: 'subscriptions' }, where)).text).toMatch(/follows nothing yet/);
      expect((await h.ask({ verb: 'subscribe', target: 'incidents' }, where)).text).toMatch(/^This channel now follows incidents of your company's services/);
      expect((await h.ask({ verb: 'subscribe', target: 'service', name: 'acme-cloud' }, where)).text).toContain('status changes of Acme Cloud');
      const board = await h.ask(
        { verb: 'subscribe', target: 'board', name: 'vendors', settings: { schedule: '0 8 * * 1-5', timezone: 'Europe/Berlin', only_on_change: true } },
        where,
      );
      expect(board.ephemeral).toBe(true);
      expect(board.text).toContain('digest of board Vendors');
      const acme = h.workspaceId('acme');
      expect(await rows()).toEqual([
        { kind: 'incidents', service_id: null, board_id: null, schedule: null, timezone: null, only_on_change: 0, edit_in_place: 0, workspace_id: acme },
        expect.objectContaining({ kind: 'service', board_id: null, workspace_id: acme }),
        {
          kind: 'board',
          service_id: null,
          board_id: ACME_BOARD,
          schedule: '0 8 * * 1-5',
          timezone: 'Europe/Berlin',
          only_on_change: 1,
          edit_in_place: 0,
          workspace_id: acme,
        },
      ]);

      const list = (await h.ask({ verb: 'subscriptions' }, where)).text;
      expect(list).toContain("incidents of your company's services");
      expect(list).toContain('Acme Cloud');
      expect(list).toContain(`${h.code('0 8 * * 1-5')} Europe/Berlin, only on change`);
    });

    it('subscribing again updates the digest settings; a service may be named by its name', async () => {
      await h.ask({ verb: 'subscribe', target: 'board', name: ACME_BOARD, settings: { schedule: '30 7 * * *', edit_in_place: true } }, where);
      const board = (await rows()).filter((r) => r.kind === 'board');
      expect(board).toEqual([expect.objectContaining({ schedule: '30 7 * * *', timezone: 'UTC', only_on_change: 0, edit_in_place: 1 })]);
      expect((await h.ask({ verb: 'subscribe', target: 'service', name: 'Acme Cloud' }, where)).text).toContain('status changes of Acme Cloud');
      expect((await rows()).filter((r) => r.kind === 'service')).toHaveLength(1);
    });

    it('explains invalid input and changes nothing', async () => {
      const before = await rows();
      const cases: [Parameters<ChatHarness['ask']>[0], RegExp][] = [
        [{ verb: 'subscribe', target: 'board', name: 'vendors', settings: { timezone: 'Mars/Olympus' } }, /timezone must be an IANA time zone/],
        [{ verb: 'subscribe', target: 'board', name: 'vendors', settings: { schedule: 'every day' } }, /schedule must be a cron expression/],
        [{ verb: 'subscribe', target: 'service', name: 'no-such-service' }, /The service does not exist/],
        [{ verb: 'subscribe', target: 'service', name: 'globex-api' }, /The service does not exist/],
        [{ verb: 'subscribe', target: 'board', name: 'nope' }, /The board does not exist/],
        [{ verb: 'subscribe', target: 'monitor', name: 'nope' }, /The monitor does not exist/],
      ];
      for (const [ask, expected] of cases) {
        const answer = await h.ask(ask, where);
        expect(answer.ephemeral).toBe(true);
        expect(answer.text, JSON.stringify(ask)).toMatch(expected);
      }
      expect(await rows()).toEqual(before);
    });

    it('refuses members without the right to change what a channel follows; the channel managers may', async () => {
      const before = await count('channel_subscriptions');
      for (const ask of [
        { verb: 'subscribe', target: 'incidents' },
        { verb: 'unsubscribe', target: 'service', name: 'acme-cloud' },
      ] as const) {
        const answer = await h.ask(ask, { ...where, member: 'member' });
        expect(answer.text).toContain('Not allowed');
        expect(answer.text).toContain(MAY_SUBSCRIBE);
      }
      expect(await count('channel_subscriptions')).toBe(before);
      const allowed = await h.ask({ verb: 'subscribe', target: 'incidents' }, { channel: 'managed', member: 'channel-manager' });
      expect(allowed.text).toMatch(/^This channel now follows/);
      expect(await count('channel_subscriptions')).toBe(before + 1);
      // Reading what a channel follows needs no right.
      expect((await h.ask({ verb: 'subscriptions' }, { ...where, member: 'member' })).text).toContain('Acme Cloud');
    });

    it('unsubscribes, and says so when the channel did not follow that', async () => {
      expect((await h.ask({ verb: 'unsubscribe', target: 'service', name: 'acme-cloud' }, where)).text).toBe(
        'This channel no longer follows service acme-cloud.',
      );
      expect((await rows()).map((r) => r.kind)).toEqual(['incidents', 'board']);
      expect((await h.ask({ verb: 'unsubscribe', target: 'service', name: 'acme-cloud' }, where)).text).toMatch(/does not follow that/);
      await h.ask({ verb: 'unsubscribe', target: 'incidents' }, where);
      await h.ask({ verb: 'unsubscribe', target: 'board', name: 'vendors' }, where);
      expect(await rows()).toEqual([]);
    });

    it('a channel that follows one company cannot follow another', async () => {
      await h.ask({ verb: 'subscribe', target: 'incidents' }, { channel: 'taken' });
      const answer = await h.ask({ verb: 'subscribe', target: 'incidents' }, { channel: 'taken', workspace: 'new' });
      expect(answer.text).toMatch(/already follows another company/);
    });
  });

  describe('/incident list | show | resolve', () => {
    it('lists the open incidents of the company only', async () => {
      const mine = await createIncident({ service_id: 1001, title: 'API <errors> & timeouts', status: 'major' });
      const theirs = await createIncident({ service_id: 2001, title: 'Globex trouble' }, GLOBEX_KEY);
      const answer = await h.ask({ verb: 'incident list' });
      expect(answer.ephemeral).toBe(true);
      expect(answer.text).toContain(
        platform === 'slack' ? `*#${mine}* :red_circle: API &lt;errors&gt; &amp; timeouts — Acme API` : `**#${mine}** API <errors> & timeouts · Acme API`,
      );
      expect(answer.text).not.toContain(`#${theirs}`);
    });

    it('shows an incident with its timeline, oldest update first, and its buttons', async () => {
      const id = await createIncident({ service_id: 1002, title: 'Slow pages', description: 'Looking into it' });
      await h.s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Cache node replaced', resolution_stage: 'monitoring' } });
      const answer = await h.ask({ verb: 'incident show', id });
      expect(answer.ephemeral).toBe(true);
      expect(answer.text).toContain(`#${id} Slow pages`);
      expect(answer.text).toContain('Acme Web');
      const investigating = answer.text.indexOf('Looking into it');
      // The last entry: Discord's embed also shows the latest description at its top.
      const monitoring = answer.text.lastIndexOf('Cache node replaced');
      expect(investigating).toBeGreaterThan(0);
      expect(monitoring).toBeGreaterThan(investigating);
      expect(answer.text.slice(0, monitoring)).toContain('Monitoring');
      expect(answer.buttons).toEqual(['Post update', 'Resolve']);
    });

    it("does not show another company's incident", async () => {
      const theirs = await createIncident({ service_id: 2001, title: 'Secret' }, GLOBEX_KEY);
      const answer = await h.ask({ verb: 'incident show', id: theirs });
      expect(answer.text).toBe('The incident does not exist.');
      expect(answer.text).not.toContain('Secret');
    });

    it('resolves with the message as typed', async () => {
      const id = await createIncident({ service_id: 1001, title: 'Queue backlog' });
      const answer = await h.ask({ verb: 'incident resolve', id, message: 'Drained the queue,  all good' });
      expect(answer.text).toBe(`Resolved incident ${h.bold(`#${id}`)}: Queue backlog`);
      const got = await attributes(id);
      expect(got.resolved).toBe(true);
      expect(got.updates.at(-1)).toMatchObject({ status: 'resolved', description: 'Drained the queue,  all good' });
    });

    it("cannot resolve another company's incident, and changes nothing", async () => {
      const theirs = await createIncident({ service_id: 2001, title: 'Theirs' }, GLOBEX_KEY);
      const before = await count('incident_updates');
      const answer = await h.ask({ verb: 'incident resolve', id: theirs });
      expect(answer.text).toBe('The incident does not exist.');
      expect(await count('incident_updates')).toBe(before);
    });
  });

  describe('service status', () => {
    for (const via of [undefined, 'statusbot'] as const) {
      it(`shows a service's status and its open incidents (${via ? '/statusbot status' : STATUS})`, async () => {
        const id = await createIncident({ service_id: 1002, title: `Checkout down ${via ?? ''}`.trim(), status: 'major' });
        const answer = await h.ask({ verb: 'status', service: 'acme-web', ...(via ? { via } : {}) });
        expect(answer.ephemeral).toBe(true);
        expect(answer.text).toContain('Acme Web');
        expect(answer.text).toContain(platform === 'slack' ? ':red_circle: Major outage' : '🔴 Major outage');
        expect(answer.text).toContain(platform === 'slack' ? `*#${id}* :red_circle: Checkout down` : `**#${id}** Checkout down`);
      });
    }

    it('shows a catalog service, also when named by its name', async () => {
      for (const service of ['acme-cloud', 'Acme Cloud']) {
        const answer = await h.ask({ verb: 'status', service });
        expect(answer.text).toContain('Acme Cloud');
        expect(answer.text).toContain('Operational');
        expect(answer.text).toContain('No open incidents.');
      }
    });

    it("suggests similar services for an unknown name, and hides other companies'", async () => {
      const similar = await h.ask({ verb: 'status', service: 'acme' });
      expect(similar.text).toBe(
        `There is no service ${h.code('acme')}. Did you mean ${h.code('acme-api')} (Acme API), ${h.code('acme-cloud')} (Acme Cloud), ${h.code('acme-web')} (Acme Web)?`,
      );
      // Vendors of the built-in catalog, those that begin with the text first.
      const vendors = await h.ask({ verb: 'status', service: 'cloud' });
      expect(vendors.text).toContain(`Did you mean ${h.code('cloudamqp')} (CloudAMQP), ${h.code('cloudflare')} (Cloudflare)`);
      const theirs = await h.ask({ verb: 'status', service: 'globex-api' });
      expect(theirs.text).toBe('The service does not exist.');
    });
  });

  describe('reporting a problem with a service', () => {
    const reporters = async () => (await h.s.ctx.db.selectFrom('user_reports').select('reporter').orderBy('id').execute()).map((r) => r.reporter);
    /** How a member counts as a reporter: the Slack user in its workspace, the Discord user. */
    const reporter = (member: 'admin' | 'member' | 'channel-manager') =>
      platform === 'slack'
        ? `slack:${h.workspaceId('acme')}:${{ admin: 'UALICE', member: 'UBOB', 'channel-manager': 'UCAROL' }[member]}`
        : `discord:${{ admin: '700000000000000001', member: '700000000000000002', 'channel-manager': '700000000000000003' }[member]}`;
    const thanks = (name: string, people: number) =>
      `Thanks: your report of a problem with ${name} is noted (${people === 1 ? '1 person' : `${people} people`} reported it in the last 30 minutes).`;

    it('/statusbot report records a report by whoever asks, counts a member once, and thanks ephemerally', async () => {
      const first = await h.ask({ verb: 'report', service: 'other-cloud' });
      expect(first.ephemeral).toBe(true);
      expect(first.text).toBe(thanks('Other Cloud', 1));
      expect((await h.ask({ verb: 'report', service: 'other-cloud' })).text).toBe(thanks('Other Cloud', 1));
      // Reporting needs no right.
      expect((await h.ask({ verb: 'report', service: 'Other Cloud' }, { member: 'member' })).text).toBe(thanks('Other Cloud', 2));
      expect(await reporters()).toEqual([reporter('admin'), reporter('member')]);
    });

    it("suggests similar services for an unknown name, hides other companies', and records nothing", async () => {
      const before = await reporters();
      const similar = await h.ask({ verb: 'report', service: 'acme' });
      expect(similar.text).toMatch(
        new RegExp(`^${escapeRegExp(`There is no service ${h.code('acme')}. Did you mean `)}.*${escapeRegExp(`${h.code('acme-cloud')} (Acme Cloud)`)}`),
      );
      expect((await h.ask({ verb: 'report', service: 'globex-api' })).text).toBe('The service does not exist.');
      expect(await reporters()).toEqual(before);
    });

    it('"Report a problem" on a service\'s status reports it for whoever clicks', async () => {
      const status = await h.ask({ verb: 'status', service: 'acme-cloud' });
      expect(status.buttons).toEqual(['Report a problem']);
      const before = await reporters();
      const answer = await h.clickReport('acme-cloud', { member: 'channel-manager' });
      expect(answer.ephemeral).toBe(true);
      expect(answer.form).toBeNull();
      expect(answer.text).toBe(thanks('Acme Cloud', 1));
      expect(await reporters()).toEqual([...before, reporter('channel-manager')]);
    });
  });

  describe('the incident forms', () => {
    it("/incident new opens the form with the company's services, title, severity, stage and description", async () => {
      const { form } = await h.ask({ verb: 'incident new' });
      expect(form).toMatchObject({ kind: 'new', fields: ['service', 'title', 'severity', 'stage', 'description'] });
      expect(form!.initial).toMatchObject({ severity: 'minor', stage: 'investigating' });
      expect(form!.initial.service).toBeUndefined();
      const chosen = await h.ask({ verb: 'incident new', service: 'acme-web' });
      expect(chosen.form!.initial.service).toBe('1002');
    });

    it('refuses an unknown service before the form', async () => {
      const answer = await h.ask({ verb: 'incident new', service: 'globex-api' });
      expect(answer.form).toBeNull();
      expect(answer.text).toContain('acme-api, acme-web');
    });

    it('a submission creates the incident and confirms ephemerally', async () => {
      const { form } = await h.ask({ verb: 'incident new' });
      const done = await h.submit(form!, {
        service: '1002',
        title: 'Checkout fails',
        severity: 'major',
        stage: 'identified',
        description: 'Payment provider times out',
      });
      const row = await h.s.ctx.db.selectFrom('incidents').selectAll().where('title', '=', 'Checkout fails').executeTakeFirstOrThrow();
      expect(row).toMatchObject({ service_id: 1002, status: 'major', resolved: 0, description: 'Payment provider times out' });
      const updates = await h.s.ctx.db.selectFrom('incident_updates').select(['stage', 'description']).where('incident_id', '=', row.id).execute();
      expect(updates).toEqual([{ stage: 'identified', description: 'Payment provider times out' }]);
      expect(done).toEqual({ text: `Opened incident ${h.bold(`#${row.id}`)} on Acme Web: Checkout fails`, fieldErrors: null });
    });

    it('shows field errors (under their inputs where the platform can) and creates nothing', async () => {
      const { form } = await h.ask({ verb: 'incident new' });
      const before = await count('incidents');
      const blank = await h.submit(form!, { service: '1001', title: '   ' });
      expect(blank.text).toContain('title must not be blank');
      if (blank.fieldErrors) expect(blank.fieldErrors).toEqual({ title: 'title must not be blank' });

      const bogus = await h.submit(form!, { service: '2001', title: 'Sneaky', severity: 'bogus' });
      expect(bogus.text).toMatch(/status must be one of minor, major/);
      if (bogus.fieldErrors) expect(Object.keys(bogus.fieldErrors)).toEqual(['severity']);

      const other = await h.submit(form!, { service: '2001', title: 'Sneaky' });
      expect(other.text).toContain('service_id must be the id of a custom service of your company');
      if (other.fieldErrors) expect(other.fieldErrors).toEqual({ service: 'service_id must be the id of a custom service of your company' });
      expect(await count('incidents')).toBe(before);
    });

    it('a submission from an unlinked workspace is refused, and creates nothing', async () => {
      const { form } = await h.ask({ verb: 'incident new' });
      const before = await count('incidents');
      const refused = await h.submit(form!, { service: '1001', title: 'x' }, { workspace: 'unlinked' });
      expect(refused.text).toMatch(/not linked/);
      if (refused.fieldErrors) expect(Object.keys(refused.fieldErrors)).toEqual(['title']);
      expect(await count('incidents')).toBe(before);
    });

    it('/incident update opens the form prefilled; a submission changes the incident and posts the update', async () => {
      const id = await createIncident({ service_id: 1001, title: 'Elevated errors', status: 'minor', resolution_stage: 'identified' });
      const { form } = await h.ask({ verb: 'incident update', id });
      expect(form).toMatchObject({ kind: 'update', fields: ['title', 'severity', 'stage', 'description'] });
      expect(form!.initial).toMatchObject({ title: 'Elevated errors', severity: 'minor', stage: 'identified' });

      const done = await h.submit(form!, { title: 'Elevated errors on login', severity: 'major', stage: 'monitoring', description: 'Fix deployed' });
      expect(done.text).toBe(`Updated incident ${h.bold(`#${id}`)}: Elevated errors on login`);
      const after = await attributes(id);
      expect(after).toMatchObject({ title: 'Elevated errors on login', status: 'major', resolved: false });
      expect(after.updates.map((u: any) => [u.status, u.description])).toEqual([
        ['identified', ''],
        ['monitoring', 'Fix deployed'],
      ]);
    });

    it('a submission that changes only the title and severity posts no update', async () => {
      const id = await createIncident({ service_id: 1001, title: 'Typo in titel' });
      const { form } = await h.ask({ verb: 'incident update', id });
      await h.submit(form!, { title: 'Typo in title', severity: 'major' });
      const after = await attributes(id);
      expect(after).toMatchObject({ title: 'Typo in title', status: 'major' });
      expect(after.updates).toHaveLength(1);
    });

    it('a stage left as the form showed it does not undo a stage someone else set meanwhile', async () => {
      const id = await createIncident({ service_id: 1001, title: 'Two responders' });
      const { form } = await h.ask({ verb: 'incident update', id });
      await h.s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Found it', resolution_stage: 'identified' } });
      await h.submit(form!, { title: 'Two responders, one fix' });
      const after = await attributes(id);
      expect(after.title).toBe('Two responders, one fix');
      expect(after.updates.map((u: any) => u.status)).toEqual(['investigating', 'identified']);
    });

    it("answers without a form for another company's incident", async () => {
      const theirs = await createIncident({ service_id: 2001, title: 'Globex only' }, GLOBEX_KEY);
      const answer = await h.ask({ verb: 'incident update', id: theirs });
      expect(answer.form).toBeNull();
      expect(answer.ephemeral).toBe(true);
      expect(answer.text).toBe('The incident does not exist.');
    });
  });

  describe("the buttons of an incident's message", () => {
    it('"Post update" opens the update form of that incident', async () => {
      const id = await createIncident({ service_id: 1002, title: 'Images missing' });
      const { form } = await h.click(id, 'update');
      expect(form).toMatchObject({ kind: 'update', initial: { title: 'Images missing' } });
    });

    it('"Resolve" opens the resolve form; its submission resolves with the message', async () => {
      const id = await createIncident({ service_id: 1002, title: 'CDN purge stuck' });
      const { form } = await h.click(id, 'resolve');
      expect(form).toMatchObject({ kind: 'resolve', fields: ['message'] });
      const done = await h.submit(form!, { message: 'Purged by hand' });
      expect(done.text).toBe(`Resolved incident ${h.bold(`#${id}`)}: CDN purge stuck`);
      const after = await attributes(id);
      expect(after.resolved).toBe(true);
      expect(after.updates.at(-1)).toMatchObject({ status: 'resolved', description: 'Purged by hand' });
    });

    it("a click on another company's incident gets not found and no form", async () => {
      const theirs = await createIncident({ service_id: 2001, title: 'Globex again' }, GLOBEX_KEY);
      const answer = await h.click(theirs, 'update');
      expect(answer.form).toBeNull();
      expect(answer.text).toBe('The incident does not exist.');
    });
  });
});
