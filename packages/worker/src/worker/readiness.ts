/** What /readyz reports: connected, consuming, and able to move messages to the retry and dead-letter queues. */
export interface ReadinessState {
  stopping: boolean;
  connected: boolean;
  consuming: boolean;
  queuesFailing: boolean;
  movesFailing: boolean;
  /** Milliseconds left of the pause after a failed batch (≤ 0: none). */
  pauseLeftMs: number;
}

export function isReady(state: ReadinessState): boolean {
  return !state.stopping && state.connected && state.consuming && !state.queuesFailing && !state.movesFailing && state.pauseLeftMs <= 0;
}
