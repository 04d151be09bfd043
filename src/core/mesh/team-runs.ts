// One hosted team's runs as the telemetry read models (src/core/telemetry/stats.ts, savings.ts) read
// a run log, so the cloud's /v1/telemetry/stats|runs|savings answer from the same code as the
// proxy's, over the team's runs only.
import type { RunLog } from "../../store/runs/types.ts";

export type TeamRunView = Pick<RunLog, "totals" | "totalsByModel" | "latencies">;

export function teamRunView(runs: RunLog, teamId: string): TeamRunView {
  return {
    totals: (since) => runs.totals(since, teamId),
    totalsByModel: (since) => runs.totalsByModel(since, teamId),
    latencies: (since, max) => runs.latencies(since, max, teamId),
  };
}
