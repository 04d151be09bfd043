// OpenAPI operations of the docs surface itself (src/surfaces/docs/index.ts).
import { Type as T } from "@sinclair/typebox";
import { type Operation, errorResponses, jsonResponse, pathParameter } from "./common.ts";

const tags = ["docs"];

export const document: Operation = {
  tags,
  summary: "This OpenAPI 3.1 document",
  responses: {
    200: jsonResponse(
      "The document",
      T.Object({ openapi: T.Literal("3.1.0"), info: T.Object({ title: T.String(), version: T.String() }), paths: T.Record(T.String(), T.Object({})) }),
    ),
  },
};

export const page: Operation = {
  tags,
  summary: "Browse this document (Swagger UI, embedded: works offline)",
  responses: { 200: { description: "The page", content: { "text/html": { schema: { type: "string" } } } } },
};

/** The docs surface names its files: the descriptions stay shared plumbing that imports no surface. */
export const asset = (names: readonly string[]): Operation => ({
  tags,
  summary: "A script or stylesheet of the docs page",
  parameters: [pathParameter("name", T.Union(names.map((n) => T.Literal(n))), "the file")],
  responses: {
    200: { description: "The file, with an ETag", content: { "text/javascript": { schema: { type: "string" } }, "text/css": { schema: { type: "string" } } } },
    304: { description: "Not modified (If-None-Match matched)" },
    ...errorResponses("spec", { 404: "No such file" }),
  },
});
