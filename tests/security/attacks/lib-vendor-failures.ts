// Helpers of the vendor-failure attacks (issue 34): vendors that break below
// HTTP, and a Relay child process on a port chosen before it starts (so that
// its own environment can point at its own address).
import { createServer, type Server } from "node:net";
import { FROM_SOURCE, childEnv, freePort, tempDir, type RunningRelay, parseLogLines } from "../../cli/relay-process.ts";

export interface RawVendor {
  url: string;
  port: number;
  close(): void;
}

/** A TCP server that answers every connection with bytes that are not HTTP, then closes it. */
export function notHttpVendor(): RawVendor {
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.write("SSH-2.0-OpenSSH_9.6\r\nthis is not an HTTP answer\r\n");
        socket.end();
      },
      data() {},
    },
  });
  return { url: `http://127.0.0.1:${listener.port}`, port: listener.port, close: () => listener.stop(true) };
}

/** A TCP server that starts an HTTP answer and resets the connection in the middle of its headers. */
export async function resetVendor(): Promise<RawVendor> {
  const server: Server = createServer((socket) => {
    socket.once("data", () => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Ty");
      socket.resetAndDestroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, port, close: () => server.close() };
}

/** Start `relay start --port <port>` with `env` and wait for /health; the port is known before the env is built. */
export async function relayAt(port: number, extraEnv: (url: string) => Record<string, string>): Promise<RunningRelay & { home: string }> {
  const home = tempDir("vendor-failures");
  const url = `http://127.0.0.1:${port}`;
  const env = childEnv(home, { RELAY_PLUGINS_DIR: `${home}/plugins`, ...extraEnv(url) });
  const proc = Bun.spawn([...FROM_SOURCE, "start", "--port", String(port)], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let out = "";
  let err = "";
  const outDone = (async () => {
    for await (const c of proc.stdout) out += new TextDecoder().decode(c);
  })();
  const errDone = (async () => {
    for await (const c of proc.stderr) err += new TextDecoder().decode(c);
  })();
  const running: RunningRelay & { home: string } = {
    proc,
    url,
    home,
    stdout: () => out,
    stderr: () => err,
    logs: () => parseLogLines(out),
    async waitForLog(match, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = parseLogLines(out).find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`log line not seen; stdout:\n${out}`);
        await Bun.sleep(20);
      }
    },
    async stop(signal = "SIGKILL") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const code = await proc.exited;
      await Promise.all([outDone, errDone]);
      return code;
    },
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`relay exited before answering /health\n${out}\n${err}`);
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) return running;
    if (Date.now() > deadline) {
      await running.stop();
      throw new Error(`relay did not answer /health\n${out}\n${err}`);
    }
    await Bun.sleep(25);
  }
}

export { freePort };
