import {
  InternalError,
  type ReadResourceResult,
  type ResourceContents,
  ResourceNotFoundError,
} from '@gantry/protocol';

function isBinary(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

function contentsFrom(item: unknown, uri: string, mimeType: string | undefined): ResourceContents {
  if (typeof item === 'string') return mimeType ? { uri, mimeType, text: item } : { uri, text: item };
  if (isBinary(item)) {
    const blob = Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('base64');
    return mimeType ? { uri, mimeType, blob } : { uri, blob };
  }
  if (typeof item === 'object' && item !== null && ('text' in item || 'blob' in item)) {
    const entry = item as Partial<ResourceContents> & { text?: unknown; blob?: unknown };
    if (entry.blob !== undefined && isBinary(entry.blob)) {
      return contentsFrom(entry.blob, entry.uri ?? uri, entry.mimeType ?? mimeType);
    }
    const merged = { ...entry, uri: entry.uri ?? uri } as ResourceContents;
    if (merged.mimeType === undefined && mimeType !== undefined) merged.mimeType = mimeType;
    return merged;
  }
  // Other values are served as JSON.
  const text = JSON.stringify(item);
  if (text === undefined)
    throw new InternalError(`Internal error: the resource ${uri} returned a value that cannot be serialized`);
  return { uri, mimeType: mimeType ?? 'application/json', text };
}

/**
 * Maps what a resource method returned to a `ReadResourceResult`:
 * - a string → text contents; a `Buffer`/`Uint8Array` → base64 `blob` contents;
 * - an object with `text` or `blob` (a contents entry, `uri` optional) → that entry;
 * - an array of the above → several entries; an object with `contents` → passed through;
 * - `undefined` / `null` → resource not found (−32002 in the session era), with the URI in `data`;
 * - anything else → its JSON, as `application/json`.
 */
export function toReadResourceResult(
  returned: unknown,
  uri: string,
  mimeType: string | undefined,
): ReadResourceResult {
  if (returned === undefined || returned === null) {
    throw new ResourceNotFoundError(`Resource not found: ${uri}`, { uri });
  }
  if (
    typeof returned === 'object' &&
    !isBinary(returned) &&
    Array.isArray((returned as ReadResourceResult).contents)
  ) {
    return returned as ReadResourceResult;
  }
  if (Array.isArray(returned)) return { contents: returned.map((item) => contentsFrom(item, uri, mimeType)) };
  return { contents: [contentsFrom(returned, uri, mimeType)] };
}
