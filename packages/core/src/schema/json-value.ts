/**
 * A JSON copy of a value when it is plain JSON data (strings, finite numbers, booleans, null,
 * arrays and objects of them), `undefined` otherwise (functions, dates, cycles, NaN…).
 * Object properties holding `undefined` are left out, as `JSON.stringify` does.
 */
export function jsonCopy(value: unknown, seen: Set<object> = new Set()): { value: unknown } | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return { value };
  if (typeof value === 'number') return Number.isFinite(value) ? { value } : undefined;
  if (typeof value !== 'object' || seen.has(value)) return undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      for (const item of value) {
        const copy = jsonCopy(item, seen);
        if (!copy) return undefined;
        items.push(copy.value);
      }
      return { value: items };
    }
    const entries: [string, unknown][] = [];
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      const copy = jsonCopy(item, seen);
      if (!copy) return undefined;
      entries.push([key, copy.value]);
    }
    return { value: Object.fromEntries(entries) };
  } finally {
    seen.delete(value);
  }
}
