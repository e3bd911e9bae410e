/** The regions that reported a monitor within two intervals, as one evaluation of its quorum counted them. */
export interface QuorumReach {
  company: string;
  /** Regions that reported within two intervals, the one just heard included. */
  live: number;
  /** Regions that must see the monitor down to call it down. */
  quorum: number;
}

/** A monitor whose quorum went out of reach (fewer regions report than it needs: it cannot go down), or back within reach. */
export interface QuorumReachChange extends QuorumReach {
  monitorId: number;
  monitorName: string;
  inReach: boolean;
}
