import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/cli.js';
import { waitUntil } from '../helpers/wait-until.js';
import { PATIENCE_MS } from '../helpers/patience.js';

/** The compiled CLI, for the tests that need a process of its own: `npm test` builds it first (pretest). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'dist', 'src', 'cli.js');

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does it)`);
}

/** The environment without anything that would change what the CLI does, plus `extra`. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(PORT|HOST|LOG_LEVEL)$|^(STATUSBOT|SLACK|DISCORD)_/.test(name)) delete env[name];
  }
  return { ...env, ...extra };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** An installed `statusbot` executable to start instead of the built `dist/src/cli.js` (process-starting helpers only). */
  bin?: string;
}

/** Runs `statusbot ARGS` to its end in this process, as through pipes (no terminal). */
export async function runCli(args: string[], options: CliOptions): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: cleanEnv(options.env),
    cwd: options.cwd,
  });
  return { code, stdout, stderr };
}

/** How a process of its own ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A `statusbot` process of its own; output accumulates while it runs. */
export interface Running {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<Exit>;
  /** The address its start line names, once it listens: where to reach it on this machine (waited for PATIENCE_MS unless told). */
  listening(timeoutMs?: number): Promise<{ url: string; port: number }>;
  /** SIGTERM, then its exit (SIGKILL after `ms`). */
  stop(ms?: number): Promise<Exit>;
}

/**
 * Starts the built `statusbot ARGS` in a process of its own: for what only a
 * process shows (its exit code and output as a shell sees them, signals, a
 * server's lifetime). Serve it on `--port 0` and ask `listening()` for the port.
 */
export function startCli(args: string[], options: CliOptions): Running {
  if (!options.bin) assertBuilt();
  const [file, argv] = options.bin ? [options.bin, args] : [process.execPath, [CLI, ...args]];
  const child = spawn(file, argv, { cwd: options.cwd, env: cleanEnv(options.env) });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (b: Buffer) => (out.stdout += b.toString('utf8')));
  child.stderr.on('data', (b: Buffer) => (out.stderr += b.toString('utf8')));
  // 'close': the process has exited and its output is read to the end.
  const exited = new Promise<Exit>((r) => child.on('close', (code, signal) => r({ code, signal })));
  let ended: Exit | null = null;
  void exited.then((exit) => (ended = exit));
  return {
    child,
    out,
    exited,
    async listening(timeoutMs?: number) {
      const bound = await waitUntil(
        () => {
          if (ended) throw new Error(`statusbot ${args.join(' ')} exited (${JSON.stringify(ended)}) before listening:\n${out.stdout}\n${out.stderr}`);
          return /statusbot listening on http:\/\/(\S+):(\d+) /.exec(out.stdout);
        },
        { what: `the start line of statusbot ${args.join(' ')}`, timeoutMs },
      );
      const host = bound[1] === '0.0.0.0' ? '127.0.0.1' : bound[1]!;
      const port = Number(bound[2]);
      return { url: `http://${host}:${port}`, port };
    },
    async stop(ms = 10_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Runs the built `statusbot ARGS` in a process of its own, to its end. */
export async function spawnCli(args: string[], options: CliOptions & { timeoutMs?: number }): Promise<Exit & { stdout: string; stderr: string }> {
  const running = startCli(args, options);
  const timer = setTimeout(() => running.child.kill('SIGKILL'), options.timeoutMs ?? PATIENCE_MS);
  try {
    return { ...(await running.exited), ...running.out };
  } finally {
    clearTimeout(timer);
  }
}
