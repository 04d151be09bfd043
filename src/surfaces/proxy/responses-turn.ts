// A Responses API turn around route(): `previous_response_id` resolved from Relay's store, and the
// answer kept (unless `store: false`) for GET /v1/responses/{id} and for the next turn.
//
// A turn continuing a stored response is routed with the whole conversation in its body (the
// earlier input and output items, then its own input), so any vendor can serve it. When the
// earlier response came from a vendor that speaks the Responses API (OpenAI), that vendor keeps the
// conversation itself: the client's own bytes, `previous_response_id` included, are what it gets
// if it serves this turn too (a same-format call sends its rawBody as it is); a translated call is
// encoded from the whole conversation instead.
import { CoreError } from "../../core/errors.ts";
import type { RouteResult, RouteStream } from "../../core/router/result.ts";
import { readableOf } from "../../core/router/result.ts";
import type { Relay } from "../../relay.ts";
import type { StoredResponse } from "../../store/responses/types.ts";
import type { Turn } from "./chat.ts";
import { ResponseCollector } from "./response-collector.ts";

type Json = Record<string, unknown>;

export async function responsesTurn(relay: Relay, body: Json, rawBody: string): Promise<Turn> {
  const own = inputItems(body.input);
  const previousId = body.previous_response_id;
  if (previousId === undefined || previousId === null) return new ResponsesTurn(relay, body, rawBody, own);
  if (typeof previousId !== "string" || previousId === "")
    throw new CoreError(400, "invalid_request", "previous_response_id must be a response id", {
      details: { parameter: "previous_response_id", provided: previousId, expected: "string" },
    });
  const previous = await relay.store.responses.get(previousId);
  if (!previous) throw previousNotFound(previousId);
  const input = [...previous.input, ...outputOf(previous), ...own];
  const { previous_response_id: _, ...rest } = body;
  return new ResponsesTurn(relay, { ...rest, input }, speaksResponses(relay, previous.provider) ? rawBody : undefined, input);
}

/** OpenAI's answer to an id it does not hold (a 400, as OpenAI gives it). */
function previousNotFound(id: string): CoreError {
  return new CoreError(400, "previous_response_not_found", `Previous response with id '${id}' not found.`, {
    details: { parameter: "previous_response_id", provided: id, expected: "the id of a stored response" },
    vendorType: "invalid_request_error",
  });
}

/** A request's input as items: a string is one user message. */
function inputItems(input: unknown): unknown[] {
  if (input === undefined) return [];
  if (typeof input === "string") return [{ role: "user", content: input }];
  if (Array.isArray(input)) return input;
  throw new CoreError(400, "invalid_request", "input must be a string or an array of input items", {
    details: { parameter: "input", provided: typeof input, expected: "string or array" },
  });
}

const outputOf = (r: StoredResponse): unknown[] => (Array.isArray(r.response.output) ? r.response.output : []);

function speaksResponses(relay: Relay, providerName: string): boolean {
  const p = relay.registry.providers.get(providerName);
  return p !== undefined && (p.format === "responses" || p.alsoSpeaks?.includes("responses") === true);
}

class ResponsesTurn implements Turn {
  constructor(
    private readonly relay: Relay,
    readonly body: Json,
    readonly rawBody: string | undefined,
    /** The conversation this turn's answer continues, kept with it. */
    private readonly input: unknown[],
  ) {}

  async settle(result: RouteResult): Promise<RouteResult> {
    if (result.kind === "error" || this.body.store === false) return result;
    if (result.kind === "answer") {
      await this.keep(JSON.parse(result.body) as Json, result.facts.provider);
      return result;
    }
    return this.keepAtEnd(result);
  }

  /**
   * The stream as it is, the response kept once its final event is read: before that event goes
   * on, so a client that continues from it right away finds it.
   */
  private async keepAtEnd(stream: RouteStream): Promise<RouteStream> {
    const collector = new ResponseCollector();
    const provider = stream.facts.provider;
    if (!(stream.body instanceof ReadableStream)) {
      // The whole stream arrived while priming: read it here and keep its single body.
      const body = stream.body instanceof Blob ? new Uint8Array(await stream.body.arrayBuffer()) : stream.body;
      const done = collector.push(body);
      if (done) await this.keep(done, provider);
      return { ...stream, body };
    }
    const tap = new TransformStream<Uint8Array | string, Uint8Array | string>({
      transform: async (chunk, controller) => {
        const done = collector.push(chunk);
        if (done) await this.keep(done, provider);
        controller.enqueue(chunk);
      },
    });
    return { ...stream, body: readableOf(stream.body).pipeThrough(tap) as ReadableStream<Uint8Array> };
  }

  /** A failure to keep it is logged; the client still gets its answer. */
  private async keep(response: Json, provider: string): Promise<void> {
    if (typeof response.id !== "string") return;
    try {
      await this.relay.store.responses.put({ id: response.id, ts: Date.now(), provider, input: this.input, response });
    } catch (e) {
      this.relay.log.error("keeping a response failed", { id: response.id, error: e });
    }
  }
}
