import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What statusbot's serving child (probe-entry.ts) reports when asked: CPU used so far, prober counters, peak RSS. */
export interface Mark {
  type: 'mark';
  cpuMicros: number;
  stats: { started: number; late: number; completed: number };
  maxRssKb: number;
}

/** statusbot serving with its jobs on, in a process of its own (bench/probe-entry.ts); resolves once it listens. */
export async function startServingChild(dbPath: string, configPath: string): Promise<{ port: number; mark(): Promise<Mark>; stop(): Promise<void> }> {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const profile = process.env.BENCH_CPU_PROF;
  const child = fork(resolve(here, 'probe-entry.js'), [dbPath, configPath], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // BENCH_CPU_PROF: a folder where the serving process writes its CPU profile.
    execArgv: profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
  });
  const { port } = await new Promise<{ port: number }>((ok, fail) => {
    child.once('message', (m: { port: number }) => ok(m));
    child.once('exit', (code) => fail(new Error(`statusbot exited (${code}) before it was ready`)));
  });
  return {
    port,
    mark: () =>
      new Promise((ok) => {
        child.once('message', (m: Mark) => ok(m));
        child.send({ type: 'mark' });
      }),
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}
