import { defineErrorClass } from '../errors';

/**
 * The session's lease was taken over by another instance: this one must stop writing for the session.
 * Thrown by the runtime's lease store (and the ports that fence a run's writes with it); the loop reads
 * it to end the run as `lease_lost` rather than as a failure.
 */
export class LeaseLostError extends defineErrorClass('LeaseLostError') {}
