import { createHash } from 'node:crypto';

/**
 * The one script of every public page, served by statusbot (the CSP allows
 * scripts from the page's own origin only). It improves what works without
 * it: arrow keys move between the days of a bar (one Tab stop per bar, a
 * roving tabindex), and times are shown in the reader's time zone (the HTML
 * says UTC, for readers without the script; `data-utc` keeps a time as it is:
 * days of the bars, which are UTC days).
 */
export const PAGE_SCRIPT = `
(() => {
  'use strict';
  const shown = (cell) => cell.getClientRects().length > 0;
  const MOVES = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
  for (const bar of document.querySelectorAll('ol.days')) {
    const cells = () => [...bar.querySelectorAll('li[tabindex]')];
    const take = (cell) => {
      for (const other of cells()) other.tabIndex = other === cell ? 0 : -1;
    };
    // A day focused by a click keeps the bar's one Tab stop, as arrow keys do.
    bar.addEventListener('focusin', (event) => {
      if (event.target.parentElement === bar && event.target.hasAttribute('tabindex')) take(event.target);
    });
    bar.addEventListener('keydown', (event) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      // Days hidden on a narrow screen are skipped.
      const visible = cells().filter(shown);
      const at = visible.indexOf(document.activeElement);
      if (at < 0) return;
      let to;
      if (event.key in MOVES) to = at + MOVES[event.key];
      else if (event.key === 'Home') to = 0;
      else if (event.key === 'End') to = visible.length - 1;
      else return;
      event.preventDefault();
      const next = visible[Math.max(0, Math.min(visible.length - 1, to))];
      take(next);
      next.focus();
    });
  }
  const format = new Intl.DateTimeFormat('en-GB', {
    day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short',
  });
  for (const time of document.querySelectorAll('time[datetime]:not([data-utc])')) {
    const at = new Date(time.dateTime);
    if (Number.isNaN(at.getTime())) continue;
    const part = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
    time.title = time.textContent;
    time.textContent = part.day + ' ' + part.month + ' ' + part.year + ', ' + part.hour + ':' + part.minute + ' ' + part.timeZoneName;
  }
})();
`.trim();

/** Where the script is served; the query changes with its content, so it may be cached for long. */
export const PAGE_SCRIPT_PATH = `/assets/statusbot.js?v=${createHash('sha256').update(PAGE_SCRIPT).digest('hex').slice(0, 12)}`;
