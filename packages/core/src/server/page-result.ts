import type { Result } from '@gantry/protocol';

type Page = { items: object[]; nextCursor?: string };

/** Names a page's items for the list result (`tools`, `prompts`, …); sync when the page is. */
export function pageResult<R extends Result>(key: string, page: Page | Promise<Page>): R | Promise<R> {
  const shape = (p: Page) =>
    (p.nextCursor === undefined ? { [key]: p.items } : { [key]: p.items, nextCursor: p.nextCursor }) as R;
  return page instanceof Promise ? page.then(shape) : shape(page);
}
