// The SDK release this build serves at GET /api/v1/version/sdk and checks SDK clients against: the
// SDK package's manifest (sdk/package.json), read at build time (`bun build` bundles an imported
// JSON file), so the server reports the version of the SDK it ships with.
import sdk from "../sdk/package.json" with { type: "json" };

export interface SdkRelease {
  /** The npm package name. */
  package: string;
  version: string;
}

export const SDK_RELEASE: SdkRelease = { package: sdk.name, version: sdk.version };
