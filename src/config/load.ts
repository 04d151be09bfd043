// Layered configuration: defaults < file < env < flags. Every leaf remembers
// the layer it came from so the dashboard can show where a value was set.
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { type Config, ConfigSchema } from "./schema.ts";
import { readTextFile } from "../runtime/fs.ts";
import { redact } from "./redact.ts";
import { rememberSecrets } from "../core/secrets/known.ts";

export type Layer = "default" | "file" | "env" | "flag";
type Tree = Record<string, unknown>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface LoadedConfig {
  config: Config;
  /** JSON pointer of every leaf value → the layer it came from. */
  sources: Record<string, Layer>;
  file: string;
  fileExists: boolean;
  /** The flag layer it was built with, kept so a reload or patch cannot override a flag. */
  flags: Tree;
}

export interface LoadOptions {
  file: string;
  env: Record<string, string | undefined>;
  /** Values from command-line flags, shaped like the config. */
  flags?: Tree;
  /** The config file must exist (it was named explicitly). */
  requireFile?: boolean;
  /** Use this text as the file's content (validating a change before it is written). */
  fileText?: string;
}

const isPlainObject = (v: unknown): v is Tree =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** RFC 7396-style merge without null deletion: objects merge, everything else replaces. */
function mergeInto(target: Tree, layer: Tree, name: Layer, sources: Record<string, Layer>, path = ""): void {
  for (const [key, value] of Object.entries(layer)) {
    if (key === "__proto__" || key === "constructor" || key === "prototype") continue;
    const p = `${path}/${key}`;
    if (isPlainObject(value) && isPlainObject(target[key])) {
      // An empty object recorded as a leaf stops being one once this layer fills it.
      if (Object.keys(value).length > 0) delete sources[p];
      mergeInto(target[key] as Tree, value, name, sources, p);
    } else {
      target[key] = structuredClone(value);
      markLeaves(value, name, sources, p);
    }
  }
}

function markLeaves(value: unknown, name: Layer, sources: Record<string, Layer>, path: string): void {
  for (const k of Object.keys(sources)) if (k.startsWith(`${path}/`)) delete sources[k];
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) markLeaves(v, name, sources, `${path}/${k}`);
  } else {
    sources[path] = name;
  }
}

/** Env variables Relay itself reads (provider keys are resolved per provider at call time). */
export function envLayer(env: Record<string, string | undefined>): Tree {
  const out: Tree = {};
  const server: Tree = {};
  const set = (name: string, fn: (v: string) => void) => {
    const v = env[name];
    if (v !== undefined && v !== "") fn(v);
  };
  set("RELAY_HOST", (v) => (server.host = v));
  set("RELAY_PORT", (v) => (server.port = parseIntStrict(v, "RELAY_PORT")));
  if (Object.keys(server).length) out.server = server;
  set("RELAY_DATA_DIR", (v) => (out.dataDir = v));
  set("RELAY_PLUGINS_DIR", (v) => (out.pluginsDirs = v.split(":").filter(Boolean)));
  set("RELAY_LOG_LEVEL", (v) => (out.logLevel = v));
  set("RELAY_ADMIN_TOKEN", (v) => (out.adminToken = v));
  set("RELAY_POSTGRES_URL", (v) => (out.store = { driver: "postgres", postgresUrl: v }));
  const cloud: Tree = {};
  const tls: Tree = {};
  set("RELAY_REDIS_URL", (v) => (cloud.redisUrl = v));
  set("RELAY_CLOUD_TLS_CERT", (v) => (tls.cert = v));
  set("RELAY_CLOUD_TLS_KEY", (v) => (tls.key = v));
  if (Object.keys(tls).length) cloud.tls = tls;
  const billing: Tree = {};
  set("STRIPE_SECRET_KEY", (v) => (billing.secretKey = v));
  set("STRIPE_WEBHOOK_SECRET", (v) => (billing.webhookSecret = v));
  if (Object.keys(billing).length) cloud.billing = billing;
  if (Object.keys(cloud).length) out.cloud = cloud;
  set("RELAY_MESH_API_KEY", (v) => (out.mesh = { apiKey: v }));
  return out;
}

export function parseIntStrict(v: string, name: string): number {
  if (!/^\d+$/.test(v.trim())) throw new ConfigError(`${name}: expected a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
}

export function defaults(): Config {
  return Value.Default(ConfigSchema, {}) as Config;
}

/** Validate a complete config, naming the JSON path, what was expected and where the value came from. */
export function validate(candidate: unknown, where: (path: string) => string): Config {
  const withDefaults = Value.Default(ConfigSchema, structuredClone(candidate));
  const first = Value.Errors(ConfigSchema, withDefaults).First();
  if (first) {
    // Fix: the error quoted the offending value verbatim, printing e.g. a too-short
    // adminToken or a postgresUrl with its password to stderr (tests/config/load.test.ts).
    const leaf = first.path.split("/").pop() ?? "";
    const got = first.value === undefined ? "nothing" : JSON.stringify(redact({ [leaf]: first.value })[leaf]);
    throw new ConfigError(`${where(first.path)}: ${first.path || "/"}: ${expectation(first.schema, first.message)} (got ${got?.slice(0, 80)})`);
  }
  return withDefaults as Config;
}

// Fix: a bad enum value (e.g. logLevel "loud") was reported as "Expected union
// value", which does not say what is allowed (tests/config/load.test.ts).
function expectation(schema: TSchema, message: string): string {
  const options = (schema.anyOf as TSchema[] | undefined)?.map((s) => s.const as unknown);
  if (!options?.length || options.some((o) => o === undefined)) return message;
  return `Expected one of ${options.map((o) => JSON.stringify(o)).join(", ")}`;
}

export function loadConfig(opts: LoadOptions): LoadedConfig {
  const where = `config file ${opts.file}`;
  const text = opts.fileText ?? readTextFile(opts.file);
  if (text === undefined && opts.requireFile) throw new ConfigError(`${where} does not exist`);
  const { config, sources } = layerConfig(text === undefined ? undefined : parseJson(text, where), where, opts.env, opts.flags);
  return { config, sources, file: opts.file, fileExists: text !== undefined, flags: opts.flags ?? {} };
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${where}: not valid JSON (${(e as Error).message})`);
  }
}

/**
 * defaults < `file` (a config file's content, or an object standing in for one; `where` names it in
 * errors) < env < flags, validated: a config file's layering, for a file or an object.
 */
export function layerConfig(file: unknown, where: string, env: Record<string, string | undefined>, flags?: Tree): { config: Config; sources: Record<string, Layer> } {
  const sources: Record<string, Layer> = {};
  const merged: Tree = {};
  mergeInto(merged, defaults() as unknown as Tree, "default", sources);
  if (file !== undefined) {
    if (!isPlainObject(file)) throw new ConfigError(`${where}: /: expected an object`);
    // Validate the file on its own first, so its errors name the file.
    validate(file, () => where);
    mergeInto(merged, file, "file", sources);
  }
  mergeInto(merged, envLayer(env), "env", sources);
  if (flags) mergeInto(merged, flags, "flag", sources);

  const config = validate(merged, (path) => {
    const layer = sources[path] ?? Object.entries(sources).find(([k]) => path.startsWith(`${k}/`))?.[1];
    return layer === "flag" ? "command-line flag" : layer === "env" ? "environment" : where;
  });
  // Every process that loads a configuration scrubs its secrets from what it logs and prints.
  rememberSecrets(config, env);
  return { config, sources };
}
