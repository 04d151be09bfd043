// Version checks (spec §9): a client's semantic version against the latest one this build knows,
// compared by the `semver` library. The urgency is the distance between the two release lines
// (major.minor.patch): a major, minor or patch step; a client on a prerelease of the latest
// release (2.0.0-rc.1 when 2.0.0 is out) is one patch away, whatever its line says, since only
// fixes separate a release candidate from its release. Equal or newer than the latest: none.
import semver from "semver";
import { invalid } from "./registry/fields.ts";

/** The interface version (spec §1.6, §9.1). */
export const API_VERSION = "1.0";
/** The same as a semantic version, which a check compares: 1.0.0. */
export const API_SEMVER: string = semver.coerce(API_VERSION)!.version;

export type Urgency = "none" | "patch" | "minor" | "major";
/** outdated: an update is available; ahead: newer than the latest this server knows. */
export type VersionStatus = "outdated" | "current" | "ahead";

export interface VersionCheck {
  current: string;
  latest: string;
  update_available: boolean;
  status: VersionStatus;
  urgency: Urgency;
}

/** `value` as a semantic version (a leading v is dropped, as semver does); 400 naming `parameter` otherwise. */
export function semanticVersion(value: unknown, parameter: string): string {
  const version = typeof value === "string" ? semver.valid(value) : null;
  if (version === null) throw invalid(parameter, value, "string", "must be a semantic version such as 1.4.2 or 2.0.0-rc.1");
  return version;
}

const releaseLine = (version: string): string => {
  const v = semver.parse(version)!;
  return `${v.major}.${v.minor}.${v.patch}`;
};

/** How `current` (a valid semantic version) stands against `latest`. Build metadata does not count. */
export function checkVersion(current: string, latest: string): VersionCheck {
  const order = semver.compare(current, latest);
  const status: VersionStatus = order < 0 ? "outdated" : order === 0 ? "current" : "ahead";
  // Two release lines differ by major, minor or patch (never a pre* step); the same line: a prerelease.
  const step = status === "outdated" ? (semver.diff(releaseLine(current), releaseLine(latest)) as Urgency | null) : "none";
  const urgency: Urgency = step ?? "patch";
  return { current, latest, update_available: status === "outdated", status, urgency };
}
