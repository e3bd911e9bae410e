const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The text within `max` UTF-16 code units (the unit the length limits of
 * Slack, Discord, Telegram, Opsgenie and our own columns count in), cut
 * between two graphemes: never inside a surrogate pair, an emoji's ZWJ
 * sequence or a letter and its combining marks. When it is cut, `mark` (an
 * ellipsis, say) ends it, within `max`.
 */
export function clipText(text: string, max: number, mark = ''): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - mark.length);
  let end = 0;
  for (const { index, segment } of graphemes.segment(text)) {
    if (index + segment.length > room) break;
    end = index + segment.length;
  }
  // One grapheme longer than the room (a letter under hundreds of marks): cut it between code points instead.
  if (end === 0 && room > 0) end = codePointEnd(text, room);
  return `${text.slice(0, end)}${mark.length <= max ? mark : ''}`;
}

/** The end of the last whole code point within `room` units. */
function codePointEnd(text: string, room: number): number {
  const last = text.charCodeAt(room - 1);
  return last >= 0xd800 && last <= 0xdbff ? room - 1 : room;
}

/** Cut with an ellipsis, as a reader sees that more was said. */
export const clipWithEllipsis = (text: string, max: number): string => clipText(text, max, '…');
