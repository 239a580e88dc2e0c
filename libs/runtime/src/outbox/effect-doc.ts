import type { EffectStatus } from '../../../domain/outbox/effect';
import type { ReadDoc } from '../../../readstore/src/read-store.port';

/** The read model the outbox polls as its due-time index (projections/effects builds it). */
export const EFFECTS_MODEL = 'effects';

export interface EffectAttemptRecord {
  attempt: number;
  at: string;
  success: boolean;
  error: string | null;
}

export interface EffectDoc extends ReadDoc {
  kind: string;
  target: string;
  projectId: string;
  causeEventId: string;
  status: EffectStatus;
  attempts: EffectAttemptRecord[];
  /** The durable timer: when the next attempt is due (null once settled). */
  dueAt: string | null;
  /** Set while `dueAt` is: the poll's equality key (FerretDB pushes only equality down). */
  due: boolean;
  createdAt: string;
  updatedAt: string;
}

