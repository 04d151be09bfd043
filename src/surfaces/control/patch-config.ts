// POST /control/config: an RFC 7396 merge patch of the config file, validated, written and applied.
// What a patch may change is bounded (src/config/http-editable.ts: never where keys or data go, a
// secret, a listen address or a path), and so is what it costs: the body's size and depth are
// checked before it is parsed, the file it produces has a size limit, and the file is read and
// written asynchronously, so one hostile patch cannot stall the thread that serves every request.
import { firstFileOnlySetting, fileOnlyReason } from "../../config/http-editable.ts";
import { nestsDeeperThan } from "../../config/json-depth.ts";
import { loadConfig } from "../../config/load.ts";
import { mergePatch } from "../../config/merge-patch.ts";
import { redact } from "../../config/redact.ts";
import { readCapped } from "../../core/read-capped.ts";
import { describeProblem, patchOptionsProblems } from "../../plugin/options.ts";
import type { Relay } from "../../relay.ts";
import { FileTooLarge, readTextFileAsync, writeFileAtomic } from "../../runtime/fs.ts";
import { parseJsonObject } from "../body.ts";
import { HttpError } from "../../core/errors.ts";
import { json } from "../http.ts";

export const PATCH_LIMITS = {
  /** A patch's body. Real patches are a few hundred bytes. */
  bytes: 64 * 1024,
  /** A patch's nesting; the deepest setting (routing.strategies.<name>.<option>...) is about 6 levels. */
  depth: 16,
  /** The config file, as read before a patch and as written after it. */
  fileBytes: 1024 * 1024,
  /** The config file's nesting (a hand-written file may nest deeper than a patch). */
  fileDepth: 32,
};

/** Read, bound, parse and vet a patch; every refusal here happens before the patch queue. */
async function readPatch(relay: Relay, request: Request): Promise<Record<string, unknown>> {
  const { bytes, depth } = PATCH_LIMITS;
  const text = await readCapped(request, bytes, () =>
    new HttpError(413, "request_too_large", `A config patch is at most ${bytes} bytes`, { details: { parameter: "body", expected: `at most ${bytes} bytes` } }),
  );
  if (nestsDeeperThan(text, depth)) {
    throw new HttpError(400, "invalid_request", `A config patch nests at most ${depth} levels deep`, {
      details: { parameter: "body", expected: `JSON nested at most ${depth} levels deep` },
    });
  }
  const patch = parseJsonObject(text);
  const setting = firstFileOnlySetting(patch);
  if (setting) {
    relay.log.warn("config patch refused", { setting: setting.path });
    throw new HttpError(
      403,
      "forbidden_setting",
      `${setting.path} cannot be changed over HTTP (${fileOnlyReason[setting.kind]}); set it in the config file, by flag or by environment variable`,
      { details: { parameter: setting.path, expected: "a setting that may be changed over HTTP" } },
    );
  }
  return patch;
}

/** The config file's current content as a tree ({} when there is none yet). */
async function readCurrent(file: string): Promise<unknown> {
  const { fileBytes, fileDepth } = PATCH_LIMITS;
  const unreadable = (why: string) => new HttpError(409, "config_unreadable", `config file ${file} ${why}; fix it by hand first`);
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
    throw new HttpError(400, "invalid_request", (e as Error).message);
  }
  const text = `${JSON.stringify(next, null, 2)}\n`;
  const size = Buffer.byteLength(text);
  if (size > PATCH_LIMITS.fileBytes) {
    throw new HttpError(413, "config_too_large", `The patched config file would be ${size} bytes, over the ${PATCH_LIMITS.fileBytes}-byte limit`, {
      details: { parameter: "body", expected: `a patch leaving the config file under ${PATCH_LIMITS.fileBytes} bytes` },
    });
  }
  return text;
}

/** Config patches are applied one at a time so two patches never interleave. */
let patchQueue: Promise<unknown> = Promise.resolve();

export async function patchConfig(relay: Relay, request: Request): Promise<Response> {
  const patch = await readPatch(relay, request);
  const run = patchQueue.then(async () => {
    const file = relay.loaded.file;
    const text = patchedText(await readCurrent(file), patch);
    let loaded;
    try {
      // Validate the whole layered result before anything is written or applied.
      loaded = loadConfig({ file, env: relay.env, flags: relay.loaded.flags, fileText: text });
    } catch (e) {
      throw new HttpError(400, "invalid_config", (e as Error).message.replace(/^config file \S+: /, ""), {
        details: { parameter: "config", expected: "a patch that keeps the configuration valid" },
      });
    }
    // Strategy options are checked against the loaded plugins' schemas, so none that would fail requests is written.
    const problems = patchOptionsProblems(loaded.config.routing.strategies, relay.registry, patch);
    if (problems.length) {
      throw new HttpError(400, "invalid_config", problems.map(describeProblem).join("; "), {
        details: { parameter: problems[0]!.path, expected: "strategy options that match the strategy plugin's schema" },
      });
    }
    await writeFileAtomic(file, text);
    relay.applyConfig(loaded);
    relay.log.info("config patched", { keys: Object.keys(patch) });
    return json({ ok: true, config: redact(loaded.config) });
  });
  patchQueue = run.catch(() => {});
  return run;
}
