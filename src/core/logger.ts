/** What every part of statusbot logs through; the composition root chooses where lines go. */
export interface Logger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
}
