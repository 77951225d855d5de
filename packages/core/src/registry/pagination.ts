import { InvalidParamsError } from '@gantry/protocol';

/** Default number of items in one page of a list result. */
export const DEFAULT_PAGE_SIZE = 100;

const CURSOR = /^p1:(\d{1,9})$/;

/** Opaque cursor for the page starting at `offset` (clients must not parse it). */
export function encodeCursor(offset: number): string {
  return Buffer.from(`p1:${offset}`).toString('base64url');
}

/**
 * The offset a cursor points at. A cursor that this server did not issue, or that points
 * past the end of the list, is invalid params (2025-11-25 pagination: −32602).
 */
export function decodeCursor(cursor: unknown, length: number): number {
  if (cursor === undefined) return 0;
  if (typeof cursor !== 'string') throw new InvalidParamsError('Invalid cursor: the cursor must be a string');
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  const offset = match ? Number(match[1]) : Number.NaN;
  if (!(offset > 0 && offset <= length)) {
    throw new InvalidParamsError(
      `Invalid cursor: ${JSON.stringify(cursor)} was not issued by this server or has expired`,
      {
        cursor,
      },
    );
  }
  return offset;
}

/** One page of `items`, with `nextCursor` when more follow. */
export function paginate<T>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
): { items: T[]; nextCursor?: string } {
  const offset = decodeCursor(cursor, items.length);
  const end = offset + pageSize;
  const page = items.slice(offset, end);
  return end < items.length ? { items: page, nextCursor: encodeCursor(end) } : { items: page };
}
