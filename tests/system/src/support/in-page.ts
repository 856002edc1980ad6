/**
 * The browser globals the suites' in-page functions (Playwright's `page.evaluate`) use, typed here
 * because the test project compiles without the DOM library. In such a function write
 * `const { document } = globalThis as unknown as InPage;`: the cast is erased, and the function
 * runs in the page, where these are the real globals.
 */
export interface InPageElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { top: number; bottom: number };
}

/** A text input, as a test types into it. */
export interface InPageInput extends InPageElement {
  value: string;
  dispatchEvent(event: unknown): boolean;
}

export interface InPage {
  window: {
    scrollY: number;
    innerHeight: number;
    scrollBy(options: { top: number; behavior: 'instant' }): void;
    scrollTo(options: { top: number; behavior: 'instant' }): void;
  };
  document: {
    querySelector(selector: string): InPageElement | null;
    querySelectorAll(selector: string): ArrayLike<InPageElement>;
    documentElement: { scrollHeight: number };
  };
  history: {
    pushState(data: unknown, unused: string, url: string): void;
    replaceState(data: unknown, unused: string, url?: string | null): void;
  };
  sessionStorage: { getItem(key: string): string | null };
  requestAnimationFrame(callback: () => void): number;
  setTimeout(callback: () => void, ms: number): number;
  dispatchEvent(event: unknown): boolean;
  PopStateEvent: new (type: string) => unknown;
  Event: new (type: string, init?: { bubbles?: boolean }) => unknown;
}
