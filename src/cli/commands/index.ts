// The operator commands, by name, for the dispatcher in ../main.ts.
import { budgetCommand } from "./budget.ts";
import type { Command } from "./context.ts";
import { dashboardCommand } from "./dashboard.ts";
import { doctorCommand } from "./doctor.ts";
import { initCommand } from "./init.ts";
import { logsCommand } from "./logs.ts";
import { modelsCommand } from "./models.ts";
import { statusCommand } from "./status.ts";

export const OPERATOR_COMMANDS: Record<string, Command> = {
  init: initCommand,
  status: statusCommand,
  models: modelsCommand,
  logs: logsCommand,
  budget: budgetCommand,
  doctor: doctorCommand,
  dashboard: dashboardCommand,
};
