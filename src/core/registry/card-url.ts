// An A2A Agent Card given by URL on POST /api/register (`card_url`): fetched once, at registration,
// through the SSRF guard (src/core/net/public-url.ts: public addresses only unless
// cloud.allowPrivateNetworks, no redirect followed, bounded in time and size), then checked like an
// inline card. Every refusal is a 400 naming card_url. A2A agents publish their card at
// /.well-known/agent-card.json; card_url is the card's full URL, that path included.
import { CoreError } from "../errors.ts";
import { fetchPublic } from "../net/public-url.ts";
import { type CheckedCard, checkCard } from "./a2a-card.ts";
import { invalid, text } from "./fields.ts";

const PARAMETER = "card_url";
/** A card with a hundred skills fits with room to spare (the inline card's body limit too). */
export const CARD_MAX_BYTES = 256 * 1024;
export const CARD_TIMEOUT_MS = 5_000;

const notACard = (url: string, message: string) =>
  new CoreError(400, "invalid_request", `${PARAMETER} ${message}`, { details: { parameter: PARAMETER, provided: url, expected: "AgentCard" } });

/** The card `body.card_url` points at, checked; undefined when the body names none. */
export async function cardFromUrl(body: Record<string, unknown>, allowPrivate: boolean): Promise<CheckedCard | undefined> {
  if (body.card_url === undefined) return undefined;
  const url = text(body.card_url, PARAMETER, 2048);
  if (body.card !== undefined) throw invalid(PARAMETER, url, "string", "cannot be sent with card: give the card inline or by URL");
  const res = await fetchPublic(url, { headers: { accept: "application/json" } }, { allowPrivate, parameter: PARAMETER, timeoutMs: CARD_TIMEOUT_MS, maxBytes: CARD_MAX_BYTES });
  if (res.status !== 200) throw new CoreError(400, "url_unreachable", `${PARAMETER} answered ${res.status}, not the card`, { details: { parameter: PARAMETER, provided: url, expected: "string" } });
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !type.endsWith("+json")) throw notACard(url, `answered ${type || "no content type"}, not JSON`);
  let card: unknown;
  try {
    card = JSON.parse(res.text);
  } catch {
    throw notACard(url, "answered a body that is not valid JSON");
  }
  try {
    return checkCard(card);
  } catch (e) {
    // The card's own field names (card.skills[0].id, …) say what is wrong; card_url is the request's field.
    throw e instanceof CoreError ? notACard(url, `does not hold a valid A2A Agent Card: ${e.message}`) : e;
  }
}
