import type { ServiceWithStatus } from '../services/service.js';

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
