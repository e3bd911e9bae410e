import type { ServiceWithStatus } from './service.js';

/** Board ids are UUIDs. */
export const BOARD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface BoardEntry {
  name: string;
  urlname: string;
  tags: string[];
}

export interface Board {
  id: string;
  name: string;
  urlname: string;
  services: BoardEntry[];
}

/** A service as a board shows it: its current status and the board's tags on it. */
export interface BoardService extends ServiceWithStatus {
  tags: string[];
}
