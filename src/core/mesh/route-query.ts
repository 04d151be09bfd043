// POST /v1/route's body: the request's coarse features (a bucket, or the tier and input size it is
// made of), the success rate to meet and, optionally, the models the caller can use.
import { invalid, texts } from "../registry/fields.ts";
import { DEFAULT_BAR, type RouteQuery } from "./aggregate.ts";
import { BUCKET_PATTERN, requestBucket } from "./bucket.ts";
import { integer, number, tierOf } from "./ingest.ts";

export function routeQuery(body: Record<string, unknown>): RouteQuery {
  const bar = body.min_success_rate === undefined ? DEFAULT_BAR : number(body.min_success_rate, "min_success_rate", 0, 1);
  const candidates = body.candidates === undefined ? undefined : texts(body.candidates, "candidates", 100, 200);
  let bucket: string;
  if (body.bucket !== undefined) {
    if (typeof body.bucket !== "string" || !BUCKET_PATTERN.test(body.bucket)) throw invalid("bucket", body.bucket, "string", "must be <tier|none>.<xs|s|m|l> or unknown");
    bucket = body.bucket;
  } else {
    if (body.tier === undefined && body.input_tokens === undefined) throw invalid("bucket", undefined, "string", "or tier and input_tokens must be given");
    bucket = requestBucket(tierOf(body.tier, "tier"), integer(body.input_tokens ?? 0, "input_tokens", 0));
  }
  return { bucket, bar, ...(candidates && { candidates }) };
}
