// TypeBox schemas of the Responses API routes (POST, GET and DELETE /v1/responses): described,
// not enforced (the body goes on to the codec and, same-format, to the vendor as it is).
import { Type as T } from "@sinclair/typebox";

/** An object that may carry more fields than listed (vendor bodies grow). */
const Open = T.Object({}, { additionalProperties: true });

export const ResponseId = T.String({ examples: ["resp_67ccd2bed1ec8190b14f964abc054267"] });

export const ResponsesRequest = T.Object(
  {
    model: T.String({ description: "any catalog model of any provider, an alias, or a virtual model such as svc:auto", examples: ["gpt-5-mini"] }),
    input: T.Optional(T.Union([T.String(), T.Array(Open)], { description: "text, or input items: messages, function_call_output, and earlier output items" })),
    instructions: T.Optional(T.String({ description: "a system message for this turn (not carried to the next)" })),
    previous_response_id: T.Optional(
      T.String({ description: "continue a stored response: passed on to OpenAI when it issued it and serves this turn, else the conversation is rebuilt from Relay's store" }),
    ),
    store: T.Optional(T.Boolean({ default: true, description: "keep the response (with the run log's retention) for GET /v1/responses/{id} and previous_response_id" })),
    stream: T.Optional(T.Boolean()),
    tools: T.Optional(T.Array(Open)),
    tool_choice: T.Optional(T.Union([T.String(), Open])),
    text: T.Optional(Open),
    reasoning: T.Optional(Open),
    max_output_tokens: T.Optional(T.Integer({ minimum: 1 })),
    temperature: T.Optional(T.Number()),
    top_p: T.Optional(T.Number()),
  },
  {
    $id: "ResponsesRequest",
    additionalProperties: true,
    description: "OpenAI Responses API request. Fields a routed provider cannot honour are dropped and named in x-svc-dropped-params.",
  },
);

export const ResponseObject = T.Object(
  {
    id: ResponseId,
    object: T.Literal("response"),
    created_at: T.Integer(),
    status: T.String({ examples: ["completed", "incomplete"] }),
    model: T.String(),
    output: T.Array(Open, { description: "output items: reasoning, message, function_call" }),
    usage: T.Union([
      T.Object(
        {
          input_tokens: T.Integer(),
          input_tokens_details: T.Optional(T.Object({ cached_tokens: T.Integer() }, { additionalProperties: true })),
          output_tokens: T.Integer(),
          output_tokens_details: T.Optional(T.Object({ reasoning_tokens: T.Integer() }, { additionalProperties: true })),
          total_tokens: T.Integer(),
        },
        { additionalProperties: true },
      ),
      T.Null(),
    ]),
  },
  { $id: "ResponseObject", additionalProperties: true },
);

export const ResponseDeleted = T.Object(
  { id: T.String(), object: T.Literal("response"), deleted: T.Literal(true) },
  { $id: "ResponseDeleted" },
);
