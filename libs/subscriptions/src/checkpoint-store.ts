import type { ReadStore } from '../../readstore/src/read-store.port';

/** Where a subscription remembers the last position it fully handled. */
export interface CheckpointStore {
  load(subscription: string): Promise<number>;
  save(subscription: string, position: number): Promise<void>;
}

/** Checkpoints kept beside the read models they describe, so a projection and its checkpoint move together. */
export class ReadStoreCheckpointStore implements CheckpointStore {
  constructor(private readonly store: ReadStore) {}

  async load(subscription: string): Promise<number> {
    const value = await this.store.getMeta<{ position: number }>(`checkpoint:${subscription}`);
    return value?.position ?? 0;
  }

  async save(subscription: string, position: number): Promise<void> {
    await this.store.setMeta(`checkpoint:${subscription}`, { position });
  }
}
