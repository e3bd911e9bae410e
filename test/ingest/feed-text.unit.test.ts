import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { feedDate, htmlToText, innerList, lenient, parseFeedDate, readItems } from '../../src/ingest/feed-text.js';

describe('parseFeedDate', () => {
  it.each([
    ['2026-07-19T23:34:03.457Z', '2026-07-19T23:34:03.457Z'],
    ['2019-02-20T13:40:58.572-06:00', '2019-02-20T19:40:58.572Z'],
    ['2026-07-15T23:57:00+00:00', '2026-07-15T23:57:00.000Z'],
    ['2026-07-15T23:57:00+0200', '2026-07-15T21:57:00.000Z'],
    ['2026-07-15 23:57:00', '2026-07-15T23:57:00.000Z'],
    ['2026-07-15', '2026-07-15T00:00:00.000Z'],
    ['Mon, 17 Aug 2026 21:01:19 PDT', '2026-08-18T04:01:19.000Z'],
    ['Tue, 03 Mar 2026 08:40:00 PST', '2026-03-03T16:40:00.000Z'],
    ['Fri, 24 Dec 2021 00:46:18 +0100', '2021-12-23T23:46:18.000Z'],
    ['Wed, 16 Mar 2022 19:46:08 GMT', '2022-03-16T19:46:08.000Z'],
    ['16 Mar 22 19:46 UT', '2022-03-16T19:46:00.000Z'],
    ['Sat Jun 11 2022 18:55:50 GMT+0000 (Coordinated Universal Time)', '2022-06-11T18:55:50.000Z'],
    ['Sat Jun 11 2022 20:55:50 GMT+0200 (Central European Summer Time)', '2022-06-11T18:55:50.000Z'],
  ])('reads %j', (text, iso) => {
    expect(parseFeedDate(text)?.toISOString()).toBe(iso);
  });

  it.each(['', 'yesterday', '2', '2026-02-30T00:00:00Z', '2026-13-01', 'Mon, 17 Aug 2026 21:01:19 XYZ', '31 Feb 2026 10:00 GMT', '2026-07-15T25:00:00Z'])(
    'refuses %j',
    (text) => {
      expect(parseFeedDate(text)).toBeNull();
    },
  );
});

describe('htmlToText', () => {
  it.each([
    ['<p>One</p><p>Two<br>Three</p>', 'One Two Three'],
    ['multi<b>ple</b> <em>words</em>', 'multiple words'],
    ['We&rsquo;re &amp; &lt;b&gt; &#8212; &#x2019; &nbsp;x', 'We’re & <b> — ’ x'],
    ['<a href="https://example.com/?a=1&amp;b=2">link</a> text', 'link text'],
    ['<!-- hidden --><style>p { color: red }</style>Shown', 'Shown'],
    ['  lots \n\n of \t space  ', 'lots of space'],
    ['&bogus; &#99999999999; &#xD800; &#0;', '&bogus; &#99999999999; &#xD800; &#0;'],
    ['1 < 2 and 3 > 2', '1 < 2 and 3 > 2'],
  ])('reads %j', (html, text) => {
    expect(htmlToText(html)).toBe(text);
  });
});

describe('htmlToText on hostile input', () => {
  it.each([
    ['unclosed comments', '<!--'],
    ['unclosed scripts', '<script'],
    ['unclosed tags', '<a'],
    ['closing tags without end', '</'],
  ])('stays linear on a few MB of %s', (_name, piece) => {
    const started = performance.now();
    htmlToText(`${piece} x `.repeat(300_000));
    // A quadratic scan of this input takes minutes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('drops an unclosed comment to the end, as a browser does', () => {
    expect(htmlToText('Shown <!-- never closed <p>hidden</p>')).toBe('Shown');
  });
});

describe('readItems', () => {
  const item = z.object({ id: z.string(), at: feedDate, note: lenient(z.string()), parts: innerList });

  it('keeps the readable items in order and names each one it leaves out, by id, else by name', () => {
    const skipped: string[] = [];
    const list = [
      { id: 'a', at: '2026-07-19T23:34:03Z', note: 42 },
      { id: 'b', at: 'yesterday' },
      { name: 'No id here', at: '2026-07-19T23:34:03Z' },
      'not an item',
      { id: 7, at: null, extra: true },
      { id: 'c', at: '2026-07-20T00:00:00Z', note: 'kept', parts: 'not a list' },
    ];
    const read = readItems(list, 'incidents.json: incidents', item, skipped);
    expect(read).toEqual([
      { id: 'a', at: new Date('2026-07-19T23:34:03Z'), note: undefined, parts: [] },
      { id: 'c', at: new Date('2026-07-20T00:00:00Z'), note: 'kept', parts: [] },
    ]);
    expect(skipped).toEqual([
      'incidents.json: incidents[1] (id "b"): at should be a date, got "yesterday"',
      'incidents.json: incidents[2] (name "No id here"): id is missing',
      'incidents.json: incidents[3]: the item should be an object',
      'incidents.json: incidents[4] (id "7"): id should be a string; at should be a string',
    ]);
  });

  it("maps each item read, giving it its own place to name its inner lists' items", () => {
    const skipped: string[] = [];
    const list = [
      {
        id: 'a',
        at: '2026-07-19T23:34:03Z',
        parts: [
          { id: 'p1', at: '2026-07-19T23:40:00Z' },
          { id: 'p2', at: 'soon' },
        ],
      },
    ];
    const ids = readItems(list, 'summary.json: incidents', item, skipped, (incident, where) => [
      incident.id,
      ...readItems(incident.parts, `${where}: parts`, item, skipped, (part) => part.id),
    ]);
    expect(ids).toEqual([['a', 'p1']]);
    expect(skipped).toEqual(['summary.json: incidents[0] (id "a"): parts[1] (id "p2"): at should be a date, got "soon"']);
  });
});
