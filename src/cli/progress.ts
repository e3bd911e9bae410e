import type { OutputStream } from './command.js';

/** One line that long operations rewrite in place on a terminal; nothing anywhere else. */
export interface Progress {
  /** Shows `line` in place of the last one (at most every 100 ms). */
  show(line: string): void;
  /** Shows what `line()` says, again every second, until done. */
  follow(line: () => string): void;
  /** Clears the line. */
  done(): void;
}

const SILENT: Progress = { show: () => {}, follow: () => {}, done: () => {} };
const REDRAW_MS = 100;
const FOLLOW_MS = 1_000;

/**
 * Progress on stderr when it is a terminal, and not under CI: in a pipe or a
 * log file the rewritten lines would be noise (the command's result is on stdout).
 */
export function terminalProgress(options: { stream?: OutputStream; env?: NodeJS.ProcessEnv; now?: () => number } = {}): Progress {
  const stream = options.stream ?? process.stderr;
  const env = options.env ?? process.env;
  if (!stream.isTTY || (env.CI !== undefined && env.CI !== '' && env.CI !== 'false')) return SILENT;
  const now = options.now ?? (() => performance.now());
  let shownAt = Number.NEGATIVE_INFINITY;
  let shown = false;
  let timer: NodeJS.Timeout | null = null;

  const draw = (line: string) => {
    const width = Math.max(10, (stream.columns || 80) - 1);
    const text = line.length > width ? `${line.slice(0, width - 1)}…` : line;
    stream.write(`\r${text}\u001b[K`);
    shown = true;
    shownAt = now();
  };
  return {
    show(line) {
      if (now() - shownAt >= REDRAW_MS) draw(line);
    },
    follow(line) {
      draw(line());
      timer = setInterval(() => draw(line()), FOLLOW_MS);
      timer.unref();
    },
    done() {
      if (timer) clearInterval(timer);
      timer = null;
      if (shown) stream.write('\r\u001b[K');
      shown = false;
    },
  };
}
