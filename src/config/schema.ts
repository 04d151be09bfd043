// The one source of truth for configuration: defaults, validation, the JSON
// Schema shipped for editors (schema/config.schema.json) and the README table
// are all derived from this TypeBox schema.
import { FormatRegistry, type Static, Type as T } from "@sinclair/typebox";

// Fix: TypeBox rejects every value of an unregistered format ("Unknown format
// 'uri'"), so any providers.<name>.baseUrl in a config file failed to load
// (tests/config/load.test.ts). Register the one format this schema uses.
if (!FormatRegistry.Has("uri")) FormatRegistry.Set("uri", (v) => /^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(v) && URL.canParse(v));

/**
 * Why a setting is file-only: it names a URL Relay sends credentials or data to ("endpoint"), is a
 * secret, says where Relay listens or whom it trusts ("listen"), or names a file, folder or store
 * ("path"). POST /control/config refuses any patch touching such a setting (src/config/http-editable.ts);
 * the file, flags and env still set it. Mark every new setting of these kinds with `fileOnly(...)`.
 */
export type FileOnlyKind = "endpoint" | "secret" | "listen" | "path";
export const fileOnly = (kind: FileOnlyKind) => ({ httpEditable: false as const, fileOnly: kind });

const Tier = T.Union([T.Literal("simple"), T.Literal("moderate"), T.Literal("complex")]);

const Price = T.Object(
  {
    input: T.Number({ minimum: 0, description: "USD per million input tokens" }),
    output: T.Number({ minimum: 0, description: "USD per million output tokens" }),
    cacheRead: T.Optional(T.Number({ minimum: 0 })),
    cacheWrite: T.Optional(T.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const ModelOverride = T.Object(
  {
    id: T.String({ minLength: 1, description: "vendor model id" }),
    provider: T.String({ minLength: 1, description: "provider plugin name" }),
    aliases: T.Optional(T.Array(T.String())),
    contextWindow: T.Optional(T.Integer({ minimum: 1 })),
    maxOutput: T.Optional(T.Integer({ minimum: 1 })),
    price: T.Optional(Price),
    capabilities: T.Optional(
      T.Object(
        {
          tools: T.Optional(T.Boolean()),
          vision: T.Optional(T.Boolean()),
          json: T.Optional(T.Boolean()),
          reasoning: T.Optional(T.Boolean()),
          streaming: T.Optional(T.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    tier: T.Optional(Tier),
    routable: T.Optional(T.Boolean()),
  },
  { additionalProperties: false },
);

const ProviderSettings = T.Object(
  {
    apiKey: T.Optional(T.String({ description: "API key; the <PROVIDER>_API_KEY env variable wins", ...fileOnly("secret") })),
    baseUrl: T.Optional(T.String({ format: "uri", description: "override of the vendor base URL", ...fileOnly("endpoint") })),
    enabled: T.Optional(T.Boolean({ description: "false hides the provider from routing" })),
  },
  { additionalProperties: false },
);

export const ConfigSchema = T.Object(
  {
    // Editors find the schema through this member (README, "Configuration"); Relay ignores it.
    $schema: T.Optional(T.String({ description: "the editor schema's location, e.g. ./schema/config.schema.json; ignored by Relay" })),
    server: T.Object(
      {
        host: T.String({ default: "127.0.0.1", description: "proxy listen address (env RELAY_HOST, flag --host)", ...fileOnly("listen") }),
        port: T.Integer({ minimum: 0, maximum: 65535, default: 4100, description: "proxy port (env RELAY_PORT, flag --port)", ...fileOnly("listen") }),
        bodyLimitBytes: T.Integer({ minimum: 1024, default: 10 * 1024 * 1024, description: "largest request body accepted" }),
        upstreamTimeoutMs: T.Integer({
          minimum: 1000,
          default: 600_000,
          description: "limit on a vendor call up to its response headers (a stream) or its whole answer (no stream); a stream's body is bounded by streamIdleTimeoutMs and streamMaxDurationMs",
        }),
        streamIdleTimeoutMs: T.Integer({ minimum: 1000, default: 120_000, description: "a vendor stream silent this long is ended" }),
        streamMaxDurationMs: T.Integer({ minimum: 1000, default: 3_600_000, description: "a vendor stream still running this long after its headers is ended (60 min: long thinking streams run many minutes)" }),
        streamMaxEventBytes: T.Integer({
          minimum: 64 * 1024,
          default: 32 * 1024 * 1024,
          description: "largest single SSE/NDJSON event of a vendor stream, counted in decoded characters (an inline image part can be several MB); a larger one ends the stream",
        }),
        streamMaxPrimingBytes: T.Integer({ minimum: 64 * 1024, default: 32 * 1024 * 1024, description: "most vendor bytes held before a stream's first real event reaches the client; more ends the attempt" }),
        streamMaxHeldBytes: T.Integer({
          minimum: 1024 * 1024,
          default: 256 * 1024 * 1024,
          description: "most bytes held from vendors by all streams together (unfinished events, priming buffers); the stream that would pass it is ended",
        }),
        shutdownGraceMs: T.Integer({ minimum: 0, default: 10_000, description: "how long in-flight requests may finish on SIGTERM" }),
        corsOrigins: T.Array(T.String(), { default: [], description: "origins allowed by CORS; empty = CORS off", ...fileOnly("listen") }),
        allowedHosts: T.Array(T.String({ minLength: 1, pattern: "^[^\\s/@]+$" }), {
          default: [],
          description:
            "Host names (name or name:port) Relay answers to besides 127.0.0.1, localhost and [::1] with its own port, e.g. a reverse proxy's name; other Hosts get 421 (DNS rebinding). Off loopback, when set, only these (and loopback) are answered. Applies to both listeners",
          ...fileOnly("listen"),
        }),
      },
      { default: {}, additionalProperties: false },
    ),
    cloud: T.Object(
      {
        host: T.String({ default: "127.0.0.1", description: "`relay cloud` listen address", ...fileOnly("listen") }),
        port: T.Integer({ minimum: 0, maximum: 65535, default: 4200, description: "`relay cloud` port", ...fileOnly("listen") }),
        redisUrl: T.Optional(
          T.String({
            format: "uri",
            description: "Redis shared by `relay cloud` instances (env RELAY_REDIS_URL), reported as `cache` by /api/health; unset = the in-process cache",
            ...fileOnly("secret"),
          }),
        ),
        tls: T.Optional(
          T.Object(
            {
              cert: T.String({ minLength: 1, description: "PEM certificate (chain) file; with key, `relay cloud` serves HTTPS (env RELAY_CLOUD_TLS_CERT)", ...fileOnly("path") }),
              key: T.String({ minLength: 1, description: "PEM private key file of cert (env RELAY_CLOUD_TLS_KEY)", ...fileOnly("path") }),
            },
            { additionalProperties: false },
          ),
        ),
        behindProxy: T.Boolean({
          default: false,
          description:
            "`relay cloud` sits behind a TLS-terminating reverse proxy (Caddy, nginx) and may listen off loopback without cloud.tls; forwarded headers (X-Forwarded-For, X-Forwarded-Proto) are still not trusted",
          ...fileOnly("listen"),
        }),
        allowPrivateNetworks: T.Boolean({
          default: false,
          description:
            "let the calls Relay makes to URLs its users give (an A2A card's card_url, webhooks) reach loopback, private, link-local and other non-public addresses; false = refused with 400 unsafe_url",
          ...fileOnly("listen"),
        }),
        workflowLeaseMs: T.Integer({
          minimum: 1000,
          default: 60_000,
          description: "how long an instance's claim on a durable workflow run lasts without a heartbeat (a third of it); a run whose instance died resumes elsewhere after it",
          ...fileOnly("listen"),
        }),
        publicUrl: T.Optional(
          T.String({
            format: "uri",
            description: "the cloud listener's public base URL, e.g. https://cloud.example.com; webhook triggers are announced at it + /hooks. Unset = the address a deploy request came in on",
            ...fileOnly("listen"),
          }),
        ),
        accounts: T.Object(
          {
            passwordMemoryKiB: T.Integer({ minimum: 8, default: 65536, description: "argon2id memory per password hash, in KiB (sign-up, sign-in, reset)" }),
            passwordTimeCost: T.Integer({ minimum: 1, maximum: 20, default: 2, description: "argon2id iterations per password hash" }),
            tokenTtlDays: T.Integer({ minimum: 1, maximum: 365, default: 30, description: "days an access token from sign-in or sign-up stays valid" }),
            signinFailuresPerEmail: T.Integer({ minimum: 1, default: 5, description: "failed sign-ins (or sign-ups of a taken email) per email per window before 429" }),
            signinFailuresGlobal: T.Integer({ minimum: 1, default: 1000, description: "failed sign-ins across all emails per window before every sign-in is 429" }),
            signinWindowMinutes: T.Integer({ minimum: 1, maximum: 1440, default: 15, description: "length of the sign-in failure window" }),
            signupsPerMinute: T.Integer({ minimum: 1, default: 60, description: "sign-ups per minute per instance (each costs an argon2id hash) before 429" }),
          },
          { default: {}, additionalProperties: false, description: "accounts of the hosted API (/v1/accounts/*)" },
        ),
        billing: T.Object(
          {
            stripeApiBase: T.String({
              format: "uri",
              default: "https://api.stripe.com",
              description: "Stripe's API base the stripe SDK calls (scheme, host and port; a test points it at a local fake)",
              ...fileOnly("endpoint"),
            }),
            secretKey: T.Optional(T.String({ minLength: 1, description: "Stripe secret key (env STRIPE_SECRET_KEY); unset = the /v1/billing routes answer 503", ...fileOnly("secret") })),
            webhookSecret: T.Optional(
              T.String({ minLength: 1, description: "signing secret of Stripe's webhook endpoint, whsec_… (env STRIPE_WEBHOOK_SECRET); unset = POST /v1/billing/webhook answers 503", ...fileOnly("secret") }),
            ),
            prices: T.Object(
              {
                maker: T.Optional(T.String({ minLength: 1, description: "Stripe price id (price_…) of the maker plan's subscription" })),
                pro: T.Optional(T.String({ minLength: 1, description: "Stripe price id (price_…) of the pro plan's subscription" })),
              },
              { default: {}, additionalProperties: false },
            ),
          },
          { default: {}, additionalProperties: false, description: "Stripe billing of the hosted plans (/v1/billing/*)" },
        ),
      },
      { default: {}, additionalProperties: false },
    ),
    logLevel: T.Union([T.Literal("debug"), T.Literal("info"), T.Literal("warn"), T.Literal("error")], {
      default: "info",
      description: "log verbosity (flag --log-level, env RELAY_LOG_LEVEL)",
    }),
    dataDir: T.String({ default: "", description: "state directory (env RELAY_DATA_DIR); empty = $RELAY_HOME/data", ...fileOnly("path") }),
    pluginsDirs: T.Array(T.String(), {
      default: [],
      description: "plugin folders (env RELAY_PLUGINS_DIR); empty = plugins/ beside the binary, then $RELAY_HOME/plugins",
      ...fileOnly("path"),
    }),
    adminToken: T.Optional(T.String({ minLength: 16, description: "bearer token for admin routes (env RELAY_ADMIN_TOKEN); unset = the install's own in $RELAY_HOME/admin-token; must be set to listen off loopback", ...fileOnly("secret") })),
    store: T.Object(
      {
        driver: T.Union([T.Literal("sqlite"), T.Literal("postgres")], { default: "sqlite", description: "embedded SQLite or shared Postgres", ...fileOnly("path") }),
        postgresUrl: T.Optional(T.String({ description: "Postgres URL when driver is postgres (env RELAY_POSTGRES_URL)", ...fileOnly("secret") })),
      },
      { default: {}, additionalProperties: false },
    ),
    providers: T.Record(T.String(), ProviderSettings, { default: {}, description: "per-provider key and base URL" }),
    routing: T.Object(
      {
        enabled: T.Boolean({ default: true, description: "false = pure passthrough to the requested model" }),
        override: T.String({ default: "", description: "strategy applied to concrete model names too (e.g. complexity); empty = only virtual models route" }),
        strategies: T.Record(T.String(), T.Record(T.String(), T.Unknown()), {
          default: {
            // No tiers and no cascade chain: unset, the strategies take them from the providers that have keys.
            complexity: {},
            cascade: { maxEscalations: 2 },
            fallback: { chains: {} },
          },
          description: "options handed to each strategy plugin by name",
        }),
        retryAfterCapMs: T.Integer({ minimum: 0, default: 5_000, description: "longest vendor Retry-After honoured before falling back" }),
      },
      { default: {}, additionalProperties: false },
    ),
    limits: T.Object(
      {
        rpmDefault: T.Integer({ minimum: 0, default: 0, description: "requests per minute per model; 0 = unlimited" }),
        rpm: T.Record(T.String(), T.Integer({ minimum: 0 }), {
          default: {},
          description: "per-model requests per minute, counted per catalog model: its dated ids and aliases share its limit",
        }),
        hourlyUsd: T.Number({ minimum: 0, default: 0, description: "hourly budget in USD; 0 = none" }),
        dailyUsd: T.Number({ minimum: 0, default: 0, description: "daily budget in USD; 0 = none" }),
      },
      { default: {}, additionalProperties: false },
    ),
    cooldown: T.Object(
      {
        failures: T.Integer({ minimum: 1, default: 3, description: "vendor failures within the window that cool a provider down" }),
        windowSec: T.Integer({ minimum: 1, default: 60, description: "window in which failures are counted" }),
        durationSec: T.Integer({ minimum: 1, default: 120, description: "cooldown length" }),
      },
      { default: {}, additionalProperties: false },
    ),
    telemetry: T.Object(
      {
        enabled: T.Boolean({ default: true, description: "log every request to the store" }),
        baselineModel: T.String({ default: "claude-opus-4-5", description: "model savings are measured against" }),
        retentionDays: T.Integer({ minimum: 1, default: 30, description: "runs older than this are pruned" }),
        durableWaitMs: T.Integer({ minimum: 0, default: 1_000, description: "longest a response waits for its run record to be committed; 0 = answer without waiting (a crash can then lose runs already answered)" }),
      },
      { default: {}, additionalProperties: false },
    ),
    mesh: T.Object(
      {
        enabled: T.Boolean({ default: false, description: "share anonymised routing outcomes with the cloud and route with what every proxy reports (never prompt or answer text)" }),
        url: T.Optional(T.String({ format: "uri", description: "the cloud's base URL (`relay cloud`), e.g. https://cloud.example.com", ...fileOnly("endpoint") })),
        apiKey: T.Optional(T.String({ minLength: 1, description: "a standard key of the team on the cloud (env RELAY_MESH_API_KEY)", ...fileOnly("secret") })),
        intervalSec: T.Integer({ minimum: 10, default: 300, description: "seconds between automatic mesh syncs (POST /v1/mesh/sync syncs now)" }),
        successBar: T.Number({ minimum: 0, maximum: 1, default: 0.9, description: "success rate a model must meet across the mesh; below it, with 5+ outcomes, strategies demote it" }),
      },
      { default: {}, additionalProperties: false },
    ),
    models: T.Array(ModelOverride, { default: [], description: "catalog overrides and additions" }),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
export type ModelOverrideConfig = Static<typeof ModelOverride>;
