import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The compiled CLI: `npm test` builds it first (pretest); run `npm run build` before running CLI tests alone. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'dist', 'src', 'cli.js');

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does it)`);
}

/** The environment without anything that would change what the CLI does, plus `extra`. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(PORT|HOST)$|^(STATUSBOT|SLACK|DISCORD)_/.test(name)) delete env[name];
  }
  return { ...env, ...extra };
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Runs `statusbot ARGS` to its end, through pipes (no terminal). */
export function runCli(args: string[], options: CliOptions): Promise<Run> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: cleanEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`statusbot ${args.join(' ')} did not exit within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr });
    });
  });
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolvePort(port));
    });
  });
}

/** A running `statusbot` command that keeps running (serve); output accumulates while it runs. */
export interface Running {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then its exit (SIGKILL after `ms`). */
  stop(ms?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startCli(args: string[], options: CliOptions): Running {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: cleanEnv(options.env) });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (b: Buffer) => (out.stdout += b.toString('utf8')));
  child.stderr.on('data', (b: Buffer) => (out.stderr += b.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  return {
    child,
    out,
    exited,
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

export async function until<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
