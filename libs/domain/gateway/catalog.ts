import type { ModelPrice } from './pricing';

/** A row of the public catalog: what every organization may call, at the platform's price. */
export interface PublicModel {
  id: string;
  ownedBy: string;
  /** Which upstream serves it by default (the simulator unless a waterfall says otherwise). */
  upstream: string;
  contextWindow: number;
  /** Used when a call names no max_tokens (also the most a call may ask). */
  maxOutputTokens: number;
  price: ModelPrice;
  createdAt: string;
}

/** The models the deterministic simulator serves; public rows of GET /api/models and /v1/models. */
export const PUBLIC_MODELS: readonly PublicModel[] = [
  { id: 'sim-mini', ownedBy: 'simulator', upstream: 'simulator', contextWindow: 128_000, maxOutputTokens: 4096, price: { inputPerMTok: 0.15, outputPerMTok: 0.6 }, createdAt: '2026-01-01T00:00:00.000Z' },
  { id: 'sim-pro', ownedBy: 'simulator', upstream: 'simulator', contextWindow: 200_000, maxOutputTokens: 8192, price: { inputPerMTok: 3, outputPerMTok: 15 }, createdAt: '2026-01-01T00:00:00.000Z' },
];

export const publicModel = (id: string): PublicModel | undefined => PUBLIC_MODELS.find((m) => m.id === id);
