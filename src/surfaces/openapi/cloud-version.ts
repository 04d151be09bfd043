// OpenAPI operations of the version routes (src/surfaces/cloud/version.ts): no key, ETags on the GETs.
import { Type as T } from "@sinclair/typebox";
import { withHostedErrors } from "./cloud.ts";
import { type Operation, jsonRequestBody, jsonResponse } from "./common.ts";

const SemVer = (description: string) => T.String({ description: `${description}: a semantic version (semver.org)` });

const ApiVersion = T.Object(
  {
    api_version: T.String({ description: "the interface version (spec §1.6): 1.0" }),
    server_version: SemVer("this Relay build's own version, as /api/health's version"),
  },
  { $id: "ApiVersion" },
);

const SdkVersion = T.Object(
  {
    sdk_version: SemVer("the SDK release this server ships, read from the SDK package's manifest when the server was built"),
    package: T.String({ description: "the SDK's npm package name" }),
  },
  { $id: "SdkVersion" },
);

const Component = T.Union([T.Literal("sdk"), T.Literal("api")], {
  description: "sdk (default): the client's SDK version against the SDK release this server ships; api: an API version the client was built for against 1.0 (compared as 1.0.0)",
});

const CheckRequest = T.Object(
  {
    version: T.String({ maxLength: 256, description: "the client's version, a semantic version such as 1.4.2 or 2.0.0-rc.1 (a leading v is accepted)" }),
    component: T.Optional(Component),
  },
  { $id: "VersionCheckRequest", description: "Other fields are ignored, so that newer clients may send more." },
);

const CheckResult = T.Object(
  {
    component: Component,
    current: SemVer("the client's version as sent, without a leading v or build metadata"),
    latest: SemVer("the latest version this server knows"),
    update_available: T.Boolean({ description: "current is older than latest (semver precedence: a prerelease is older than its release; build metadata does not count)" }),
    status: T.Union([T.Literal("outdated"), T.Literal("current"), T.Literal("ahead")], { description: "ahead: current is newer than latest (a server older than its client)" }),
    urgency: T.Union([T.Literal("none"), T.Literal("patch"), T.Literal("minor"), T.Literal("major")], {
      description:
        "none unless an update is available; then the step between the two release lines (major.minor.patch): major, minor or patch. A prerelease of the latest release (2.0.0-rc.1 against 2.0.0) is a patch step.",
    }),
  },
  { $id: "VersionCheck" },
);

const CACHE_HEADERS = {
  etag: { description: "the body's hash; send it as If-None-Match to get a 304 until the server is upgraded", schema: { type: "string" as const } },
  "cache-control": { description: "public, max-age=300: caches may keep it five minutes, then revalidate", schema: { type: "string" as const } },
};

const NOT_MODIFIED = { description: "Not modified: If-None-Match named the current ETag", headers: CACHE_HEADERS };
const NO_KEY = "No key needed: an SDK checks for updates before it has credentials. Not rate limited: the answers are constants of the build.";

const open = (op: Operation & { responses: Record<string, object> }, refusals: Record<number, string>): Operation =>
  ({ tags: ["versions"], security: [], ...op, description: `${op.description} ${NO_KEY}`, responses: withHostedErrors(op.responses, refusals) }) as Operation;

export const api = open(
  {
    summary: "The API version",
    description: "The interface version this server speaks (spec §9.1) and the server's own version.",
    responses: { 200: jsonResponse("The versions", ApiVersion, CACHE_HEADERS), 304: NOT_MODIFIED },
  },
  {},
);

export const sdk = open(
  {
    summary: "The SDK version",
    description: "The version of the SDK package released with this server: its latest version as far as this server knows.",
    responses: { 200: jsonResponse("The SDK release", SdkVersion, CACHE_HEADERS), 304: NOT_MODIFIED },
  },
  {},
);

export const check = open(
  {
    summary: "Check a client version for updates",
    description: "Whether an update is available for the client's version, the current and latest versions, and how far apart they are (urgency), compared by the semver library.",
    requestBody: jsonRequestBody(CheckRequest),
    responses: { 200: jsonResponse("The comparison", CheckResult) },
  },
  {
    400: "the body is not a JSON object, version is missing or not a semantic version, or component is neither sdk nor api (invalid_request; details.parameter names the field, details.expected is string)",
    413: "body over 4 KB (request_too_large)",
  },
);
