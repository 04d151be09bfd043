// Strategy options are read from config on every plan. Config objects are
// replaced whole on change, so each options object is validated once and the
// result kept for as long as that object lives.

export function parsedOnce<T>(read: (options: Record<string, unknown>) => T): (options: Record<string, unknown>) => T {
  const parsed = new WeakMap<Record<string, unknown>, T>();
  return (options) => {
    let value = parsed.get(options);
    if (value === undefined) parsed.set(options, (value = read(options)));
    return value;
  };
}
