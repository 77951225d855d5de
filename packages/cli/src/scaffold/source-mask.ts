/**
 * `source` with the insides of comments, strings and template literals replaced by spaces
 * (line breaks kept), so every index still points at the same place. Brackets, keywords and
 * commas found in the mask are code, which is all the text edits of `gantry generate` need.
 * Regular expression literals are not recognised: a module file that has one with quotes or
 * brackets in it may confuse the edit, which its verification then catches.
 */
export function maskSource(source: string): string {
  const out = source.split('');
  const n = source.length;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };

  /** Index after the string literal that opens at `start`. */
  const skipString = (start: number): number => {
    const quote = source[start];
    let j = start + 1;
    while (j < n && source[j] !== quote && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
    return Math.min(j + 1, n);
  };

  /** Index after the code that starts at `start`: up to its unmatched `}` when `inTemplate`. */
  const skipCode = (start: number, inTemplate: boolean): number => {
    let depth = 0;
    let j = start;
    while (j < n) {
      const c = source[j];
      if (c === '/' && source[j + 1] === '/') {
        const end = source.indexOf('\n', j);
        j = end === -1 ? n : end;
      } else if (c === '/' && source[j + 1] === '*') {
        const end = source.indexOf('*/', j + 2);
        j = end === -1 ? n : end + 2;
      } else if (c === "'" || c === '"') {
        j = skipString(j);
      } else if (c === '`') {
        j = skipTemplate(j);
      } else {
        if (inTemplate && c === '{') depth++;
        if (inTemplate && c === '}' && depth-- === 0) return j + 1;
        j++;
      }
    }
    return n;
  };

  /** Index after the template literal that opens at `start`, `${…}` expressions included. */
  const skipTemplate = (start: number): number => {
    let j = start + 1;
    while (j < n) {
      const c = source[j];
      if (c === '\\') j += 2;
      else if (c === '`') return j + 1;
      else if (c === '$' && source[j + 1] === '{') j = skipCode(j + 2, true);
      else j++;
    }
    return n;
  };

  let i = 0;
  while (i < n) {
    const c = source[i];
    if (c === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? n : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      const stop = c === '`' ? skipTemplate(i) : skipString(i);
      blank(i + 1, stop - 1);
      i = stop;
    } else {
      i++;
    }
  }
  return out.join('');
}

const CLOSING: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** Index of the bracket that closes the one at `open` in a masked source, or -1. */
export function matchingBracket(masked: string, open: number): number {
  const stack: string[] = [];
  for (let i = open; i < masked.length; i++) {
    const c = masked[i];
    if (c in CLOSING) stack.push(CLOSING[c]);
    else if (c === ')' || c === ']' || c === '}') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/**
 * The top-level pieces of the bracketed list that spans `open`..`close` in a masked source,
 * split at commas outside nested brackets: `[A, { b: 1 }, C]` → 3 ranges. Empty pieces (a
 * trailing comma) are left out.
 */
export function listItems(masked: string, open: number, close: number): { start: number; end: number }[] {
  const items: { start: number; end: number }[] = [];
  let depth = 0;
  let start = open + 1;
  const push = (end: number) => {
    const text = masked.slice(start, end);
    const lead = text.length - text.trimStart().length;
    if (text.trim()) items.push({ start: start + lead, end: start + text.trimEnd().length });
  };
  for (let i = open + 1; i < close; i++) {
    const c = masked[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      push(i);
      start = i + 1;
    }
  }
  push(close);
  return items;
}
