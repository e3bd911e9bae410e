import { renderToString } from 'preact-render-to-string';

/*
 * The little markup incident and maintenance texts may hold, the same on
 * pages, in mail and in feeds: a blank line between paragraphs, line breaks
 * kept, lines starting with "- " as a list, `**bold**`, and bare http(s) URLs
 * as links. Nothing else is markup: every other character is text, escaped
 * where it is written out (JSX does it), so `<word>` shows as typed.
 */

/** A run of a line: text, bold text, or a link (whose text is its address). */
export type Inline = { kind: 'text'; text: string } | { kind: 'bold'; parts: Inline[] } | { kind: 'link'; href: string };
/** A line is a list of runs. */
export type Line = Inline[];
export type Block = { kind: 'paragraph'; lines: Line[] } | { kind: 'list'; items: Line[] };

const LIST_ITEM = /^[ \t]*-[ \t]+/;
const BLANK = /^[ \t]*$/;
// An address runs to the first space or character no one types in a bare URL; what trails it is looked at below.
const URL_START = /\bhttps?:\/\/[^\s<>"'`]+/gi;
// Sentence punctuation after an address belongs to the sentence.
const TRAILING = /[.,;:!?'")\]}*]+$/;

/** `text` cut into paragraphs and lists, each line into runs. */
export function updateBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | null = null;
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.replace(/[ \t]+$/, '');
    if (BLANK.test(line)) {
      current = null;
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      if (current?.kind !== 'list') {
        current = { kind: 'list', items: [] };
        blocks.push(current);
      }
      current.items.push(inlineRuns(line.slice(item[0].length)));
    } else {
      if (current?.kind !== 'paragraph') {
        current = { kind: 'paragraph', lines: [] };
        blocks.push(current);
      }
      current.lines.push(inlineRuns(line.trimStart()));
    }
  }
  return blocks;
}

/** A line's runs: `**…**` pairs as bold (an unpaired `**` is text), addresses as links. */
export function inlineRuns(line: string): Inline[] {
  const runs: Inline[] = [];
  let rest = line;
  for (;;) {
    const open = rest.indexOf('**');
    const close = open === -1 ? -1 : rest.indexOf('**', open + 2);
    // `****` holds nothing to make bold: it is text.
    if (open === -1 || close === -1 || close === open + 2) {
      runs.push(...linkRuns(rest));
      break;
    }
    runs.push(...linkRuns(rest.slice(0, open)), { kind: 'bold', parts: linkRuns(rest.slice(open + 2, close)) });
    rest = rest.slice(close + 2);
  }
  return merged(runs);
}

/** Text with its http(s) addresses as links; what trails an address (a full stop, a closing bracket it did not open) stays text. */
function linkRuns(text: string): Inline[] {
  const runs: Inline[] = [];
  let at = 0;
  for (const match of text.matchAll(URL_START)) {
    let href = match[0];
    for (;;) {
      const trimmed = href.replace(TRAILING, (tail) => keptClosers(href.slice(0, href.length - tail.length), tail));
      if (trimmed === href) break;
      href = trimmed;
    }
    if (!isWebAddress(href)) continue;
    const start = match.index;
    if (start > at) runs.push({ kind: 'text', text: text.slice(at, start) });
    runs.push({ kind: 'link', href });
    at = start + href.length;
  }
  if (at < text.length) runs.push({ kind: 'text', text: text.slice(at) });
  return runs;
}

/** Of a trailing run, the closing brackets the address opened itself (`…/Foo_(bar)`) stay in it. */
function keptClosers(head: string, tail: string): string {
  const first = tail[0];
  if (first !== ')' && first !== ']') return '';
  const opener = first === ')' ? '(' : '[';
  const opened = head.split(opener).length - head.split(first).length;
  return opened > 0 ? first : '';
}

function isWebAddress(href: string): boolean {
  try {
    const url = new URL(href);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function merged(runs: Inline[]): Inline[] {
  const out: Inline[] = [];
  for (const run of runs) {
    const last = out.at(-1);
    if (run.kind === 'text' && last?.kind === 'text') last.text += run.text;
    else if (run.kind !== 'text' || run.text !== '') out.push(run);
  }
  return out;
}

function Runs(props: { runs: readonly Inline[] }) {
  return (
    <>
      {props.runs.map((run) =>
        run.kind === 'text' ? (
          run.text
        ) : run.kind === 'bold' ? (
          <strong>
            <Runs runs={run.parts} />
          </strong>
        ) : (
          <a href={run.href}>{run.href}</a>
        ),
      )}
    </>
  );
}

/** An update's text as HTML: paragraphs, line breaks, lists, bold and links; everything else as text. */
export function UpdateText(props: { text: string }) {
  return (
    <>
      {updateBlocks(props.text).map((block) =>
        block.kind === 'list' ? (
          <ul>
            {block.items.map((item) => (
              <li>
                <Runs runs={item} />
              </li>
            ))}
          </ul>
        ) : (
          <p>
            {block.lines.map((line, i) => (
              <>
                {i > 0 ? <br /> : null}
                <Runs runs={line} />
              </>
            ))}
          </p>
        ),
      )}
    </>
  );
}

/** An incident's or a maintenance's text on a page, in its own block: the one way pages show such a text. */
export function TextBlock(props: { text: string }) {
  return (
    <div class="update-text">
      <UpdateText text={props.text} />
    </div>
  );
}

/** The same as an HTML fragment, for feeds (which carry it escaped) and mail. */
export const updateHtml = (text: string): string => renderToString(<UpdateText text={text} />);
