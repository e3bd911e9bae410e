import { describe, expect, it } from 'vitest';
import { updateHtml } from '../../src/markup/update-text.js';

describe('update text as HTML', () => {
  it('keeps paragraphs, line breaks and "- " lists', () => {
    const text = 'We are looking into it.\nMore soon.\n\nAffected:\n- checkout\n- login\n\nThanks.';
    expect(updateHtml(text)).toBe('<p>We are looking into it.<br/>More soon.</p><p>Affected:</p><ul><li>checkout</li><li>login</li></ul><p>Thanks.</p>');
  });

  it('reads Windows line ends and blank lines with spaces as the same', () => {
    expect(updateHtml('one\r\ntwo\r\n   \r\nthree')).toBe('<p>one<br/>two</p><p>three</p>');
  });

  it('makes **bold** bold, and leaves an unpaired ** as typed', () => {
    expect(updateHtml('**Fixed** for all, **not** for **some')).toBe('<p><strong>Fixed</strong> for all, <strong>not</strong> for **some</p>');
    expect(updateHtml('**** and **')).toBe('<p>**** and **</p>');
  });

  it('links bare http(s) addresses, leaving the sentence punctuation after them as text', () => {
    expect(updateHtml('See https://acme.example/status. Or http://x.example/a?b=1&c=2, then (https://acme.example/p).')).toBe(
      '<p>See <a href="https://acme.example/status">https://acme.example/status</a>. Or ' +
        '<a href="http://x.example/a?b=1&amp;c=2">http://x.example/a?b=1&amp;c=2</a>, then ' +
        '(<a href="https://acme.example/p">https://acme.example/p</a>).</p>',
    );
    expect(updateHtml('https://en.wikipedia.org/wiki/Foo_(bar)!')).toBe(
      '<p><a href="https://en.wikipedia.org/wiki/Foo_(bar)">https://en.wikipedia.org/wiki/Foo_(bar)</a>!</p>',
    );
    expect(updateHtml('**https://acme.example/x**')).toBe('<p><strong><a href="https://acme.example/x">https://acme.example/x</a></strong></p>');
  });

  it('shows markup as text: no tag, no attribute, no script reaches the output', () => {
    const html = updateHtml('<script>alert(1)</script> the <b>queue</b> & "<word>" <img src=x onerror=alert(1)>');
    expect(html).toBe('<p>&lt;script>alert(1)&lt;/script> the &lt;b>queue&lt;/b> &amp; &quot;&lt;word>&quot; &lt;img src=x onerror=alert(1)></p>');
    expect(html.replace(/<\/?p>/g, '')).not.toContain('<');
  });

  it('never links anything but http(s) addresses', () => {
    for (const text of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)//https',
      'data:text/html,<b>x</b>',
      'vbscript:x',
      'https://',
      'http:// x',
      'ftp://files.example',
    ]) {
      expect(updateHtml(text)).not.toContain('<a ');
    }
    // An address inside something else is linked only as the http(s) address it is.
    expect(updateHtml('javascript://https://acme.example/"onmouseover=alert(1)')).toBe(
      '<p>javascript://<a href="https://acme.example/">https://acme.example/</a>&quot;onmouseover=alert(1)</p>',
    );
  });

  it('an address stops at a quote or an angle bracket, so it cannot leave its attribute', () => {
    expect(updateHtml('https://acme.example/a"b<c>')).toBe('<p><a href="https://acme.example/a">https://acme.example/a</a>&quot;b&lt;c></p>');
  });

  it('an empty or blank text renders nothing', () => {
    expect(updateHtml('')).toBe('');
    expect(updateHtml(' \n\n ')).toBe('');
  });
});
