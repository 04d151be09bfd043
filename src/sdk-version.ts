// The SDK release this build serves at GET /api/v1/version/sdk and checks SDK clients against.
// The SDK package (issue 39 item 1, `sdk/`) is not in the repository yet, so no SDK is published
// and there is no version to give: the routes answer 503 sdk_unavailable (docs/hosted-api.md,
// Versions). When `sdk/package.json` lands, this becomes its manifest, read at build time
// (`bun build` bundles an imported JSON file):
//   import sdk from "../sdk/package.json" with { type: "json" };
//   export const SDK_RELEASE: SdkRelease | undefined = { package: sdk.name, version: sdk.version };

export interface SdkRelease {
  /** The npm package name. */
  package: string;
  version: string;
}

export const SDK_RELEASE: SdkRelease | undefined = undefined;
