/** How every kind of probe runs: its timeout, the private-target guard, and the process's stop. */
export interface ProbeSettings {
  timeoutMs: number;
  blockPrivateTargets: boolean;
  userAgent: string;
  /** Sent with each HTTP probe besides the user agent (an agent names its region in X-Statusbot-Region). */
  headers?: Readonly<Record<string, string>>;
  /** Fired when the process stops: a probe under way ends with StoppingError, recorded nowhere. */
  stop?: AbortSignal;
  /** Certificates a tls probe trusts besides the public roots (a private CA). */
  trustedCertificates?: string[];
  /** Wall-clock time in epoch ms, against which certificates expire. */
  now?: () => number;
}

/** Where in its interval a monitor's probes fall: spread by id, so that monitors do not all fire in the same second. */
export const phaseOf = (id: number, intervalMs: number): number => ((id * 2_654_435_761) % (intervalMs / 1000)) * 1000;
