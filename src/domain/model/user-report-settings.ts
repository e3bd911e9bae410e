/** When user reports open an incident on a service, and when that incident resolves. */
export interface UserReportSettings {
  /** Distinct reporters within the window that open an incident. */
  threshold: number;
  windowMs: number;
  /** The incident resolves this long after the last report. */
  resolveAfterMs: number;
}

export const DEFAULT_USER_REPORTS: UserReportSettings = { threshold: 3, windowMs: 30 * 60_000, resolveAfterMs: 60 * 60_000 };
