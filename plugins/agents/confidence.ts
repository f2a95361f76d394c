// Confidences of memories and profile facts, as they are stored.

/**
 * A confidence (0–1) as its `real` column keeps it: six decimals. A real holds about seven significant digits and
 * refuses a value below 1e-38 (out of range), which a body may well send.
 */
export const storedConfidence = (confidence: number) => Math.round(confidence * 1e6) / 1e6;
