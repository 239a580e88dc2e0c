/** A model's price in US dollars per million tokens; a token then costs exactly that many micro-dollars. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** Cost in micro-dollars, rounded up (a fraction of a micro-dollar is never given away). */
export function costMicros(price: ModelPrice, inputTokens: number, outputTokens: number): number {
  return Math.ceil(inputTokens * price.inputPerMTok + outputTokens * price.outputPerMTok);
}

/**
 * The most a call can cost before it runs: every byte of its input a token (no byte-level BPE
 * tokenizer yields more tokens than UTF-8 bytes) plus `max_tokens` of output. An upper bound, not an
 * estimate: the reservation must never be below the settled cost.
 */
export function worstCaseMicros(price: ModelPrice, inputBytes: number, maxOutputTokens: number): number {
  return costMicros(price, inputBytes, maxOutputTokens);
}

/** The calendar month (UTC, `YYYY-MM`) and day (`YYYY-MM-DD`) of an ISO instant. */
export const monthOf = (iso: string): string => iso.slice(0, 7);
export const dayOf = (iso: string): string => iso.slice(0, 10);
