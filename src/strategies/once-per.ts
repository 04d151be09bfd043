// Strategies derive things from objects that are replaced whole when they
// change (a config's options, a catalog's routable list), so each derivation
// runs once per object and lives as long as that object does.

export function oncePer<K extends object, T>(derive: (key: K) => T): (key: K) => T {
  const derived = new WeakMap<K, T>();
  return (key) => {
    let value = derived.get(key);
    if (value === undefined) derived.set(key, (value = derive(key)));
    return value;
  };
}
