// The SDK's own version, from its manifest, bundled in at build time.
import pkg from "../package.json" with { type: "json" };

export const SDK_PACKAGE: string = pkg.name;
export const SDK_VERSION: string = pkg.version;
