// Versions on `relay cloud` (spec §9; issue 39 item 7): GET /api/v1/version/api, GET
// /api/v1/version/sdk and POST /api/v1/version/check, with no key: an SDK checks for updates before
// it has any credentials. Like the public data, no rate limit: the two GETs answer constants of the
// build (ETag, Cache-Control: public), and a check is one semver comparison of a body of at most
// 4 KB. Fields of a check's body other than version and component are ignored, so that an older
// server keeps answering newer SDKs that send more.
import { Elysia } from "elysia";
import { invalid } from "../../core/registry/fields.ts";
import { API_SEMVER, API_VERSION, checkVersion, semanticVersion } from "../../core/versions.ts";
import { SDK_RELEASE, type SdkRelease } from "../../sdk-version.ts";
import { VERSION } from "../../version.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-version.ts";
import { hostedJson } from "./errors.ts";
import { answer, doc } from "./public-data.ts";

const BODY_LIMIT = 4 * 1024;

/** What a build knows: its own version and the SDK release it ships (src/sdk-version.ts). */
export interface BuildVersions {
  server: string;
  sdk: SdkRelease;
}

export const BUILD_VERSIONS: BuildVersions = { server: VERSION, sdk: SDK_RELEASE };

function check(build: BuildVersions, body: Record<string, unknown>) {
  const current = semanticVersion(body.version, "version");
  const component = body.component === undefined ? "sdk" : body.component;
  if (component !== "sdk" && component !== "api") throw invalid("component", body.component, "string", "must be sdk or api");
  const latest = component === "api" ? API_SEMVER : build.sdk.version;
  return { component, ...checkVersion(current, latest) };
}

export function versionRoutes(build: BuildVersions = BUILD_VERSIONS) {
  const api = doc({ api_version: API_VERSION, server_version: build.server });
  const sdk = doc({ sdk_version: build.sdk.version, package: build.sdk.package });
  return new Elysia({ name: "cloud-version" })
    .get("/api/v1/version/api", ({ request }) => answer(request, api), { detail: docs.api })
    .get("/api/v1/version/sdk", ({ request }) => answer(request, sdk), { detail: docs.sdk })
    .post("/api/v1/version/check", async ({ request }) => json(check(build, await hostedJson(request, BODY_LIMIT))), { parse: "none", detail: docs.check });
}
