import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

/** A JSON body whose title holds `bytes` as they are, whatever they encode. */
function bodyWithTitleBytes(bytes: number[]): Buffer {
  return Buffer.concat([Buffer.from('{"service_id":1001,"title":"bad '), Buffer.from(bytes), Buffer.from('"}')]);
}

async function post(body: Buffer) {
  const res = await fetch(`${s.url}/api/v2/incidents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
    body: new Uint8Array(body),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) };
}

const incidentCount = async () =>
  (
    await s.ctx.db
      .selectFrom('incidents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
  ).n;

describe('a JSON body that is not valid UTF-8', () => {
  const cases: [string, number[]][] = [
    ['a lone continuation byte', [0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a UTF-16 surrogate encoded', [0xed, 0xa0, 0x80]],
    ['a byte never used in UTF-8', [0xff]],
  ];
  for (const [what, bytes] of cases) {
    it(`holding ${what} is 400 in the error shape, and nothing is stored`, async () => {
      const before = await incidentCount();
      const res = await post(bodyWithTitleBytes(bytes));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: [{ status: 400, title: 'Bad request', detail: 'The body is not valid UTF-8' }] });
      expect(await incidentCount()).toBe(before);
    });
  }

  it('valid UTF-8 beyond ASCII is stored as sent', async () => {
    const res = await post(bodyWithTitleBytes([...Buffer.from('Störung 障害 🚨')]));
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.title).toBe('bad Störung 障害 🚨');
  });
});
