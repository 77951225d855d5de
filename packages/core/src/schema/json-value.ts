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

/** Structural equality of JSON values (JSON Schema's `enum` and `const`). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
