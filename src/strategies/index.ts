import type { StrategyPlugin } from "../plugin/api.ts";
import cascade from "./cascade/index.ts";
import complexity from "./complexity/index.ts";
import fallback from "./fallback/index.ts";

export const builtinStrategies: StrategyPlugin[] = [complexity, cascade, fallback];
