/** Why a run was asked to stop, in the words its `done` event gives. */
export const STOP_REASONS = {
  cancelled: 'cancelled by request',
  interrupted: 'interrupted by a new message',
} as const;

export type StopKind = keyof typeof STOP_REASONS;

/** The reason a stopped run gives: the one its signal was aborted with, else a cancel. */
export function stopReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : STOP_REASONS.cancelled;
}
