import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatHarness } from '../helpers/chat.js';
import { PLATFORMS } from '../helpers/platforms.js';
import { FAST_DELIVERY } from '../helpers/test-server.js';
import { queueDueDigests } from '../../src/domain/read/digests/board-digest.js';

/** `2026-11-22 10:02 UTC`: how chat states the time of a reason. */
const utcMinute = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** What operators alone read: the feed's address, the HTTP status, the network error. */
function expectNoFeedDetail(text: string): void {
  expect(text).not.toMatch(/127\.0\.0\.1|status\.internal|HTTP \d{3}|ENOTFOUND|summary\.json/);
}

/** A vendor whose status statusbot does not know is "No data" in chat, with the reason; never its last status. */
describe.each(PLATFORMS)('$platform', ({ start }) => {
  let h: ChatHarness;
  beforeAll(async () => {
    h = await start({ delivery: FAST_DELIVERY });
  });
  afterAll(async () => {
    await h?.stop();
  });

  /** Acme Cloud gets a feed in the state a poller would have left it. */
  async function feedState(state: { last_checked_at: number | null; stale_at: number | null; last_error: string | null; failures: number }) {
    const db = h.s.ctx.db;
    const service = await db.selectFrom('services').select('id').where('urlname', '=', 'acme-cloud').executeTakeFirstOrThrow();
    await db.updateTable('services').set({ feed_kind: 'statuspage', feed_url: 'https://status.acme-cloud.example' }).where('id', '=', service.id).execute();
    await db.deleteFrom('vendor_feeds').where('service_id', '=', service.id).execute();
    await db
      .insertInto('vendor_feeds')
      .values({ service_id: service.id, indicator: 'ok', ...state })
      .execute();
  }

  it('says "No data" and why for a vendor whose feed was never read, though the API keeps its seed status', async () => {
    await feedState({ last_checked_at: null, stale_at: null, last_error: 'http://127.0.0.1:9100/api/v2/summary.json: HTTP 404', failures: 2 });
    const answer = await h.ask({ verb: 'status', service: 'acme-cloud' });
    expect(answer.text).toContain('No data');
    expect(answer.text).toContain("the vendor's status feed could not be read");
    expectNoFeedDetail(answer.text);
    expect(answer.text).not.toContain('Operational');
    const api = (await h.s.api('GET', '/api/v2/services/acme-cloud')).body.data.attributes;
    expect(api).toMatchObject({ status: 'ok', last_checked_at: null });
  });

  it('says "No data" once the last successful read is older than three intervals, and the status again once read', async () => {
    const now = h.s.clock.now().getTime();
    await feedState({ last_checked_at: now - 4 * 60_000, stale_at: now - 60_000, last_error: 'timeout after 10 s', failures: 3 });
    const stale = await h.ask({ verb: 'status', service: 'acme-cloud' });
    expect(stale.text).toContain('No data');
    expect(stale.text).toContain(`the vendor's status feed could not be read since ${utcMinute(now - 4 * 60_000)}`);
    expect(stale.text).not.toContain('timeout');

    await feedState({ last_checked_at: now, stale_at: now + 3 * 60_000, last_error: null, failures: 0 });
    const known = await h.ask({ verb: 'status', service: 'acme-cloud' });
    expect(known.text).toContain('Operational');
    expect(known.text).not.toContain('No data');
  });

  it('says "No data" and why for such a vendor in the board digest, which does not call the board operational', async () => {
    await feedState({ last_checked_at: null, stale_at: null, last_error: null, failures: 0 });
    await h.ask({ verb: 'subscribe', target: 'board', name: 'vendors', settings: { schedule: '* * * * *' } }, { channel: 'nodata' });
    expect(await queueDueDigests(h.s.ctx, h.s.clock.now())).toBeGreaterThan(0);
    await h.settle();
    const [digest] = h.shown('nodata');
    expect(digest!.text).toContain('Acme Cloud');
    expect(digest!.text).toContain('No data');
    expect(digest!.text).toContain("the vendor's status feed has not been read yet");
    expect(digest!.text).toContain('1 of 1 without data');
    expect(digest!.text).not.toContain('all services operational');
  });

  it('gives the plain reason in the board digest, never the address or the network error of the failed read', async () => {
    const now = h.s.clock.now().getTime();
    await feedState({
      last_checked_at: now - 5 * 60_000,
      stale_at: now - 60_000,
      last_error: 'http://status.internal:9100/api/v2/summary.json: getaddrinfo ENOTFOUND status.internal',
      failures: 4,
    });
    await h.ask({ verb: 'subscribe', target: 'board', name: 'vendors', settings: { schedule: '* * * * *' } }, { channel: 'failing' });
    expect(await queueDueDigests(h.s.ctx, h.s.clock.now())).toBeGreaterThan(0);
    await h.settle();
    const [digest] = h.shown('failing');
    expect(digest!.text).toContain('Acme Cloud');
    expect(digest!.text).toContain(`No data`);
    expect(digest!.text).toContain(`the vendor's status feed could not be read since ${utcMinute(now - 5 * 60_000)}`);
    expectNoFeedDetail(digest!.text);
  });
});
