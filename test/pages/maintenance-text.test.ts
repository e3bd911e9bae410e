import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES_CONFIG } from '../helpers/pages.js';
import { T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const HOUR = 3_600_000;
const at = (hoursFromT0: number) => new Date(Date.parse(T0) + hoursFromT0 * HOUR).toISOString();

const DESCRIPTION = 'Writes pause for a minute.\nReads go on.\n\nWhat waits:\n- exports\n- **webhooks**';

/** The block a page shows a maintenance's description in: from its first line to the end of its list. */
function descriptionBlock(html: string): string {
  const from = html.lastIndexOf('<', html.indexOf('Writes pause for a minute.'));
  const to = html.indexOf('</ul>', from);
  expect(from, 'the description is on the page').toBeGreaterThan(-1);
  expect(to, 'its list is on the page').toBeGreaterThan(from);
  return html.slice(from, to + '</ul>'.length);
}

describe("a maintenance's description", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: PAGES_CONFIG });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('keeps its line breaks, paragraphs and list on the status page, rendered as on its own page', async () => {
    t.clock.set(T0);
    const res = await t.api('POST', '/api/v2/maintenances', {
      body: { title: 'Database upgrade', description: DESCRIPTION, service_ids: [1001], starts_at: at(1), ends_at: at(2) },
    });
    expect(res.status, res.text).toBe(201);
    const status = descriptionBlock(await (await fetch(`${t.url}/status/acme`)).text());
    const own = descriptionBlock(await (await fetch(`${t.url}/maintenances/${res.body.data.id}`)).text());

    expect(status).toContain('Writes pause for a minute.<br/>Reads go on.</p><p>What waits:</p><ul><li>exports</li><li><strong>webhooks</strong></li></ul>');
    expect(status).toBe(own);
  });
});
