// The config patch service: an RFC 7396 merge patch of the config file, validated, written and
// applied, for any caller (POST /control/config renders it over HTTP). What a patch may change is
// bounded (http-editable.ts: never where keys or data go, a secret, a listen address or a path),
// and so is what it costs: the patch's size and depth are checked before it is parsed, the file it
// produces has a size limit, and the file is read and written asynchronously, so one hostile patch
// cannot stall the thread that serves every request. Refusals are the core's CoreError, whose
// status is a hint the caller may render.
import { CoreError } from "../core/errors.ts";
import { parseJsonObject } from "../core/json-object.ts";
import type { Logger } from "../core/log.ts";
import { describeProblem, patchOptionsProblems } from "../plugin/options.ts";
import type { Registry } from "../plugin/registry.ts";
import { FileTooLarge, readTextFileAsync, writeFileAtomic } from "../runtime/fs.ts";
import { firstFileOnlySetting, fileOnlyReason } from "./http-editable.ts";
import { nestsDeeperThan } from "./json-depth.ts";
import { loadConfig, type LoadedConfig } from "./load.ts";
import { mergePatch } from "./merge-patch.ts";
import { redact } from "./redact.ts";

export const PATCH_LIMITS = {
  /** A patch's text. Real patches are a few hundred bytes. */
  bytes: 64 * 1024,
  /** A patch's nesting; the deepest setting (routing.strategies.<name>.<option>...) is about 6 levels. */
  depth: 16,
  /** The config file, as read before a patch and as written after it. */
  fileBytes: 1024 * 1024,
  /** The config file's nesting (a hand-written file may nest deeper than a patch). */
  fileDepth: 32,
};

/** What a patch is applied to: the running Relay (src/relay.ts) is one. */
export interface PatchTarget {
  readonly loaded: LoadedConfig;
  readonly env: Record<string, string | undefined>;
  readonly log: Logger;
  readonly registry: Registry;
  applyConfig(loaded: LoadedConfig): void;
}

export interface PatchResult {
  ok: true;
  /** The new effective configuration, secrets redacted. */
  config: unknown;
}

/** The refusal of a patch over PATCH_LIMITS.bytes; a caller reading the patch from a stream raises it as soon as the stream passes the limit. */
export const patchTooLarge = (): CoreError =>
  new CoreError(413, "request_too_large", `A config patch is at most ${PATCH_LIMITS.bytes} bytes`, {
    details: { parameter: "body", expected: `at most ${PATCH_LIMITS.bytes} bytes` },
  });

/**
 * Vet, merge, validate, write and apply a patch, one patch at a time. `patch` is the JSON text (its
 * size bounded by the caller, see patchTooLarge; its depth checked here before it is parsed) or an
 * object an in-process caller built.
 */
export async function patchConfig(target: PatchTarget, patch: string | Record<string, unknown>): Promise<PatchResult> {
  const vetted = vetPatch(target, typeof patch === "string" ? parsePatch(patch) : patch);
  const run = patchQueue.then(() => applyPatch(target, vetted));
  patchQueue = run.catch(() => {});
  return run;
}

/** Config patches are applied one at a time so two patches never interleave. */
let patchQueue: Promise<unknown> = Promise.resolve();

function parsePatch(text: string): Record<string, unknown> {
  const { depth } = PATCH_LIMITS;
  if (nestsDeeperThan(text, depth)) {
    throw new CoreError(400, "invalid_request", `A config patch nests at most ${depth} levels deep`, {
      details: { parameter: "body", expected: `JSON nested at most ${depth} levels deep` },
    });
  }
  return parseJsonObject(text);
}

/** Refuses a patch that touches a file-only setting; every refusal up to here happens before the patch queue. */
function vetPatch(target: PatchTarget, patch: Record<string, unknown>): Record<string, unknown> {
  const setting = firstFileOnlySetting(patch);
  if (setting) {
    target.log.warn("config patch refused", { setting: setting.path });
    throw new CoreError(
      403,
      "forbidden_setting",
      `${setting.path} cannot be changed over HTTP (${fileOnlyReason[setting.kind]}); set it in the config file, by flag or by environment variable`,
      { details: { parameter: setting.path, expected: "a setting that may be changed over HTTP" } },
    );
  }
  return patch;
}

async function applyPatch(target: PatchTarget, patch: Record<string, unknown>): Promise<PatchResult> {
  const file = target.loaded.file;
  const text = patchedText(await readCurrent(file), patch);
  let loaded;
  try {
    // Validate the whole layered result before anything is written or applied.
    loaded = loadConfig({ file, env: target.env, flags: target.loaded.flags, fileText: text });
  } catch (e) {
    throw new CoreError(400, "invalid_config", (e as Error).message.replace(/^config file \S+: /, ""), {
      details: { parameter: "config", expected: "a patch that keeps the configuration valid" },
    });
  }
  // Strategy options are checked against the loaded plugins' schemas, so none that would fail requests is written.
  const problems = patchOptionsProblems(loaded.config.routing.strategies, target.registry, patch);
  if (problems.length) {
    throw new CoreError(400, "invalid_config", problems.map(describeProblem).join("; "), {
      details: { parameter: problems[0]!.path, expected: "strategy options that match the strategy plugin's schema" },
    });
  }
  await writeFileAtomic(file, text);
  target.applyConfig(loaded);
  target.log.info("config patched", { keys: Object.keys(patch) });
  return { ok: true, config: redact(loaded.config) };
}

/** The config file's current content as a tree ({} when there is none yet). */
async function readCurrent(file: string): Promise<unknown> {
  const { fileBytes, fileDepth } = PATCH_LIMITS;
  const unreadable = (why: string) => new CoreError(409, "config_unreadable", `config file ${file} ${why}; fix it by hand first`);
  let text: string | undefined;
  try {
    text = await readTextFileAsync(file, fileBytes);
  } catch (e) {
    if (e instanceof FileTooLarge) throw unreadable(`is over ${fileBytes} bytes`);
    throw e;
  }
  if (text === undefined) return {};
  if (nestsDeeperThan(text, fileDepth)) throw unreadable(`nests deeper than ${fileDepth} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw unreadable("is not valid JSON");
  }
}

/** The patched file's text, refused when over the file limit. */
function patchedText(base: unknown, patch: Record<string, unknown>): string {
  let next: unknown;
  try {
    next = mergePatch(base, patch);
  } catch (e) {
    throw new CoreError(400, "invalid_request", (e as Error).message);
  }
  const text = `${JSON.stringify(next, null, 2)}\n`;
  const size = Buffer.byteLength(text);
  if (size > PATCH_LIMITS.fileBytes) {
    throw new CoreError(413, "config_too_large", `The patched config file would be ${size} bytes, over the ${PATCH_LIMITS.fileBytes}-byte limit`, {
      details: { parameter: "body", expected: `a patch leaving the config file under ${PATCH_LIMITS.fileBytes} bytes` },
    });
  }
  return text;
}
