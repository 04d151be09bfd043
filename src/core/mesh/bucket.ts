// The coarse feature bucket of a request, shared through the mesh: its complexity tier and a band
// of its input size, e.g. `complex.m`. Both halves come from fixed words, so a bucket can never
// carry a request's text; the cloud refuses any other shape (BUCKET_PATTERN).
const BANDS: readonly [max: number, band: string][] = [
  [1_000, "xs"],
  [8_000, "s"],
  [32_000, "m"],
];

/** `<tier or none>.<xs|s|m|l>`, or `unknown` for runs reported without their tier or size. */
export const BUCKET_PATTERN = /^(?:(?:simple|moderate|complex|none)\.(?:xs|s|m|l)|unknown)$/;

/** The bucket of a request of `tier` (none when no strategy scored it) with about `inputTokens` input tokens. */
export function requestBucket(tier: string | undefined, inputTokens: number): string {
  const band = BANDS.find(([max]) => inputTokens < max)?.[1] ?? "l";
  const t = tier === "simple" || tier === "moderate" || tier === "complex" ? tier : "none";
  return `${t}.${band}`;
}
