/**
 * The Markdown people write in incident updates, read as far as chat
 * platforms can show it: bold, italics, inline code, links, code blocks and
 * lists. Anything else (headings, tables, a marker without its pair) stays
 * text. Each platform writes the result in its own markup (Slack's mrkdwn,
 * Telegram's HTML); Discord and Teams read Markdown as it is.
 */
export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'bold' | 'italic'; children: Inline[] }
  | { kind: 'link'; url: string; children: Inline[] };

export type Block = { kind: 'line'; content: Inline[] } | { kind: 'item'; marker: string; content: Inline[] } | { kind: 'pre'; text: string };

/** How a platform writes each part; `text` escapes what the platform would read as markup. */
export interface MarkupWriter {
  text(text: string): string;
  code(text: string): string;
  bold(inner: string): string;
  italic(inner: string): string;
  link(url: string, inner: string, plain: string): string;
  pre(text: string): string;
  item(marker: string, inner: string): string;
}

// Tried in this order at each position: the first that matches wins.
const INLINE: { re: RegExp; make: (m: RegExpExecArray) => Inline }[] = [
  { re: /^`([^`\n]+)`/, make: (m) => ({ kind: 'code', text: m[1]! }) },
  { re: /^\[([^\]\n]+)\]\((https?:\/\/[^\s()<>]+|mailto:[^\s()<>]+)\)/, make: (m) => ({ kind: 'link', url: m[2]!, children: inlines(m[1]!) }) },
  { re: /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/, make: (m) => ({ kind: 'bold', children: inlines(m[2]!) }) },
  { re: /^\*(?=[^\s*])([^*\n]*?[^\s*])\*(?!\*)/, make: (m) => ({ kind: 'italic', children: inlines(m[1]!) }) },
  { re: /^_(?=[^\s_])([^_\n]*?[^\s_])_(?![\p{L}\p{N}_])/u, make: (m) => ({ kind: 'italic', children: inlines(m[1]!) }) },
];

/** The inline parts of one line. */
export function inlines(text: string): Inline[] {
  const parts: Inline[] = [];
  let plain = '';
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    // An underscore inside a word (snake_case) opens nothing.
    const midWord = text[i] === '_' && i > 0 && /[\p{L}\p{N}]/u.test(text[i - 1]!);
    const found = midWord ? undefined : INLINE.map(({ re, make }) => ({ m: re.exec(rest), make })).find((x) => x.m !== null);
    if (!found) {
      plain += text[i];
      i += 1;
      continue;
    }
    if (plain) parts.push({ kind: 'text', text: plain });
    plain = '';
    parts.push(found.make(found.m!));
    i += found.m![0].length;
  }
  if (plain) parts.push({ kind: 'text', text: plain });
  return parts;
}

/** The blocks of a text: fenced code, list items, and lines. */
export function blocks(text: string): Block[] {
  const out: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*```/.test(line)) {
      const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
      if (end !== -1) {
        out.push({ kind: 'pre', text: lines.slice(i + 1, end).join('\n') });
        i = end;
        continue;
      }
    }
    const item = /^(\s*)([-*+]|\d{1,3}[.)])\s+(.*)$/.exec(line);
    if (item) out.push({ kind: 'item', marker: `${item[1]}${/\d/.test(item[2]!) ? item[2] : '•'}`, content: inlines(item[3]!) });
    else out.push({ kind: 'line', content: inlines(line) });
  }
  return out;
}

const plainOf = (parts: readonly Inline[]): string => parts.map((p) => (p.kind === 'text' || p.kind === 'code' ? p.text : plainOf(p.children))).join('');

function writeOne(p: Inline, w: MarkupWriter): string {
  switch (p.kind) {
    case 'text':
      return w.text(p.text);
    case 'code':
      return w.code(p.text);
    case 'bold':
      return w.bold(writeInline(p.children, w));
    case 'italic':
      return w.italic(writeInline(p.children, w));
    case 'link':
      return w.link(p.url, writeInline(p.children, w), plainOf(p.children));
  }
}

const writeInline = (parts: readonly Inline[], w: MarkupWriter): string => parts.map((p) => writeOne(p, w)).join('');

/** The text in a platform's markup. */
export function writeMarkdown(text: string, w: MarkupWriter): string {
  return blocks(text)
    .map((b) => (b.kind === 'pre' ? w.pre(b.text) : b.kind === 'item' ? w.item(b.marker, writeInline(b.content, w)) : writeInline(b.content, w)))
    .join('\n');
}
