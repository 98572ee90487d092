/** Attribute values that frameworks record as JSON strings. */
export const j = (v: unknown): string => JSON.stringify(v);
