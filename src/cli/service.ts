// `relay service install --print`: the systemd unit for this very binary.
import { resolve } from "node:path";
import { isCompiled } from "../config/paths.ts";
import { UsageError, parseFlags } from "./args.ts";
import type { CliIO } from "./main.ts";
import unitTemplate from "../../deploy/relay.service" with { type: "text" };

export function serviceCommand(args: string[], io: CliIO, help: string): number {
  const { values, positionals } = parseFlags(args, { print: { type: "boolean" }, user: { type: "string" }, help: { type: "boolean", short: "h" } }, "service");
  if (values.help) {
    io.out(`${help}\n`);
    return 0;
  }
  if (positionals[0] !== "install") throw new UsageError("relay service: expected 'install' (relay service install --print)");
  if (!values.print) throw new UsageError("relay service install: only --print is supported; redirect its output to /etc/systemd/system/relay.service");
  io.out(renderUnit(values.user));
  return 0;
}

export function renderUnit(user?: string): string {
  const exec = isCompiled ? process.execPath : `${process.execPath} ${resolve(import.meta.dir, "../server.ts")}`;
  let unit = unitTemplate.replace("ExecStart=/usr/local/bin/relay start", `ExecStart=${exec} start`);
  if (user) {
    if (!/^[a-z_][a-z0-9_-]*$/i.test(user)) throw new UsageError(`--user: not a valid user name: ${JSON.stringify(user)}`);
    unit = unit.replace("DynamicUser=yes", `User=${user}\nGroup=${user}`);
  }
  return unit;
}

