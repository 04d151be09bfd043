// Small persistent state by key, for what has no aggregate of its own (switches, settings).

export interface KvStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}
