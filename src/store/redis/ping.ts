// One PING to a Redis, for the hosted health check: a fresh connection each time, so the answer
// says whether Redis can be reached now (a kept client would report its own reconnect state).
import { RedisClient } from "bun";

/** Resolves when Redis answers PONG within `timeoutMs`; rejects otherwise, the connection closed either way. */
export async function pingRedis(url: string, timeoutMs: number): Promise<void> {
  const client = new RedisClient(url, { connectionTimeout: timeoutMs, autoReconnect: false, enableAutoPipelining: false });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no PONG within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.ping(), late]);
  } finally {
    clearTimeout(timer);
    client.close();
  }
}
