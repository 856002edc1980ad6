import { SendOutcome } from './http-sender';

/** A message claimed for one attempt. */
export interface ClaimedMessage {
  id: string;
  subscriptionId: string;
  tenantId: string;
  url: string;
  sealedSecret: Buffer;
  type: string;
  body: string;
  /** Attempts made before this one. */
  attempts: number;
  createdAt: Date;
}

/** What becomes of a message after an attempt. */
export type Settlement = { delivered: true } | { retryAt: Date } | { failed: true };

/** The scheduler's view of the queue, so that it can be tested without a database. */
export interface DeliveryQueue {
  /** Up to `limit` due messages, at most `perSubscription` of one subscription, none of `exclude`. */
  claim(limit: number, perSubscription: number, exclude: readonly string[]): Promise<ClaimedMessage[]>;
  /** Gives a claimed message back untried (its subscription was at its limit here). */
  release(ids: readonly string[]): Promise<void>;
  settle(message: ClaimedMessage, outcome: SendOutcome, settlement: Settlement): Promise<void>;
}
