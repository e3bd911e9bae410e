import { describe, expect, it } from 'vitest';
import { mrkdwn } from '../../adapters/slack/dialect.js';
import { telegramHtml } from '../../src/delivery/telegram-publisher.js';

describe('update Markdown in Slack mrkdwn and Telegram HTML', () => {
  const cases: { markdown: string; slack: string; telegram: string }[] = [
    { markdown: '**bold** and __bold__', slack: '*bold* and *bold*', telegram: '<b>bold</b> and <b>bold</b>' },
    { markdown: '*it* and _it_', slack: '_it_ and _it_', telegram: '<i>it</i> and <i>it</i>' },
    { markdown: '**a _b_ c**', slack: '*a _b_ c*', telegram: '<b>a <i>b</i> c</b>' },
    {
      markdown: 'run `rm -rf <dir> && **x**`',
      slack: 'run `rm -rf &lt;dir&gt; &amp;&amp; **x**`',
      telegram: 'run <code>rm -rf &lt;dir&gt; &amp;&amp; **x**</code>',
    },
    {
      markdown: 'see [**the** doc](https://x.example/a?b=1&c=2)',
      slack: 'see <https://x.example/a?b=1&c=2|the doc>',
      telegram: 'see <a href="https://x.example/a?b=1&amp;c=2"><b>the</b> doc</a>',
    },
    { markdown: '- one\n* two\n  + three\n1. first', slack: '• one\n• two\n  • three\n1. first', telegram: '• one\n• two\n  • three\n1. first' },
    { markdown: '```\nif (a < b) **x**\n```', slack: '```\nif (a &lt; b) **x**\n```', telegram: '<pre>if (a &lt; b) **x**</pre>' },
  ];
  for (const c of cases) {
    it(`converts ${JSON.stringify(c.markdown)}`, () => {
      expect(mrkdwn(c.markdown)).toBe(c.slack);
      expect(telegramHtml(c.markdown)).toBe(c.telegram);
    });
  }

  const literal = [
    'snake_case_name and queue_a',
    '2 * 3 * 4',
    'an **unclosed marker',
    '# not a heading we show',
    '[a link](javascript:alert(1))',
    'a <b>tag</b> & "quotes"',
  ];
  for (const text of literal) {
    it(`leaves ${JSON.stringify(text)} as text, escaped`, () => {
      expect(mrkdwn(text)).toBe(text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
      expect(telegramHtml(text)).toBe(text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'));
    });
  }

  it('puts no | into the address of a Slack link', () => {
    expect(mrkdwn('[x](https://a.example/p|q)')).toBe('<https://a.example/p%7Cq|x>');
  });
});
