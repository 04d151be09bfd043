// A TCP forwarder to a local port that can turn into a black hole: connections stay open but no
// byte passes either way, as when the network to a database dies. Real sockets, nothing mocked.
import type { Socket } from "bun";

interface Link {
  upstream?: Socket<undefined>;
  /** Client bytes that arrived before the upstream connection was open. */
  pending: Uint8Array[];
}

export interface TcpForwarder {
  port: number;
  /** From now on no byte passes, on open connections and new ones alike. */
  blackhole(): void;
  /** Close every open connection and forward again. */
  reset(): void;
  close(): void;
}

export function tcpForwarder(targetPort: number): TcpForwarder {
  let passing = true;
  const clients = new Set<Socket<Link>>();
  const server = Bun.listen<Link>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async open(client) {
        client.data = { pending: [] };
        clients.add(client);
        const upstream = await Bun.connect({
          hostname: "127.0.0.1",
          port: targetPort,
          socket: {
            data: (_, bytes) => void (passing && client.write(bytes)),
            close: () => void client.end(),
            error: () => void client.end(),
          },
        });
        client.data.upstream = upstream;
        for (const bytes of client.data.pending) upstream.write(bytes);
        client.data.pending = [];
      },
      data(client, bytes) {
        if (!passing) return;
        if (client.data.upstream) client.data.upstream.write(bytes);
        else client.data.pending.push(new Uint8Array(bytes));
      },
      close(client) {
        clients.delete(client);
        client.data.upstream?.end();
      },
    },
  });
  const dropAll = () => {
    for (const c of clients) c.end();
    clients.clear();
  };
  return {
    port: server.port,
    blackhole: () => void (passing = false),
    reset() {
      dropAll();
      passing = true;
    },
    close() {
      dropAll();
      server.stop(true);
    },
  };
}
