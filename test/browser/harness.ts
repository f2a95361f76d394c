// Browser tests: the real service (listening on loopback, with the fake Discord of the signed-in world) and Debian's
// Chromium driven by playwright-core. `startBrowserWorld(t)` gives both; `world.open()` a fresh page (its own
// cookies and storage); `world.signIn(page)` signs the officer in through the whole OAuth flow, clicking the
// dashboard's own button. Pages record their console errors and uncaught exceptions: `world.problems(page)`.
// The dashboard is built by tap's `before` script (scripts/build-web.mjs) and by `npm test`'s pretest step installs
// Chromium (.ci/setup-browser.sh).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { startSignInWorld, type SignInWorld, type TestAppOptions, type TeardownHost } from '@quad/core/testing';
import { freePort } from '../startup/support.js';
import { atProcessEnd } from '../support/process-end.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = fileURLToPath(new URL('./screenshots/', import.meta.url));

export interface BrowserWorld extends SignInWorld {
  /** http://127.0.0.1:<port>, where the service listens (and the dashboard is served). */
  base: string;
  browser: Browser;
  /** A new page in a new browser context, 1280×800. */
  open(): Promise<Page>;
  /** Sign in as `userId` (default the officer) from the sign-in page; resolves on the Overview. */
  signIn(page: Page, userId?: string): Promise<void>;
  /** The console errors (but failed requests) and uncaught exceptions the page has had. */
  problems(page: Page): string[];
  /** Save a screenshot under test/browser/screenshots/<name>.png (git-ignored). */
  screenshot(page: Page, name: string): Promise<void>;
}

type Options = TestAppOptions & { orgModules?: Record<string, boolean> };

/** The world's service on a port known before it starts (the OAuth redirect names it); another try if it is taken. */
async function listeningWorld(t: TeardownHost, options: Options): Promise<{ world: SignInWorld; base: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    try {
      const world = await startSignInWorld(t, {
        ...options, listen: true, port,
        // DASHBOARD_URL unset: sign-in comes back to the dashboard this service serves.
        config: { REDIRECT_URI: `${base}/api/auth/callback`, DASHBOARD_URL: undefined, ...options.config },
      });
      return { world, base };
    } catch (err) {
      if ((err as { code?: string }).code !== 'EADDRINUSE' || attempt === 3) throw err;
    }
  }
}

let launched: Promise<Browser> | undefined;

/**
 * The process's Chromium, which every world of its test files shares (launching one costs about a second of CPU;
 * each world's pages have contexts of their own), closed when the process's last file ends. As root Chromium needs
 * --no-sandbox. No GPU process: headless, Chromium would still start one (software GL) to composite pages that need
 * none of it (a browser test file took about a tenth less CPU without).
 */
function sharedBrowser(): Promise<Browser> {
  if (!launched) {
    const browser = launched = chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
    atProcessEnd(() => browser.then((b) => b.close(), () => {}));
  }
  return launched;
}

export async function startBrowserWorld(t: TeardownHost, options: Options = {}): Promise<BrowserWorld> {
  const { world, base } = await listeningWorld(t, options);
  const browser = await sharedBrowser();
  const contexts: BrowserContext[] = [];
  t.teardown(() => Promise.all(contexts.map((context) => context.close())));
  const problems = new WeakMap<Page, string[]>();

  return {
    ...world, base, browser,
    async open() {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: base });
      contexts.push(context);
      // Test files load through tsx, whose esbuild keeps function names with a `__name(fn, name)` helper; a function
      // a test hands to page.evaluate is serialised with those calls, so the page gets the helper too.
      await context.addInitScript('globalThis.__name = (fn) => fn;');
      const page = await context.newPage();
      const seen: string[] = [];
      problems.set(page, seen);
      // A refused request is the browser's console error too ("Failed to load resource"): tests assert answers
      // themselves; everything else (React's warnings, failed imports) is a problem.
      page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) seen.push(`console: ${m.text()}`); });
      page.on('pageerror', (e) => seen.push(`uncaught: ${e.message}`));
      return page;
    },
    async signIn(page, userId = world.officer.id) {
      world.discord.signInAs(userId);
      await page.goto('/dashboard/');
      await page.getByRole('link', { name: 'Sign in with Discord' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    },
    problems: (page) => problems.get(page) ?? [],
    async screenshot(page, name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
    },
  };
}

/**
 * Wait until the element `selector` matches has this computed background colour (`rgb(r, g, b)`). The element may
 * be re-rendered meanwhile (branding reloads): absent for a moment counts as "not yet".
 */
export async function waitForBackground(page: Page, selector: string, rgb: string): Promise<void> {
  await page.waitForFunction(([sel, want]) => {
    const element = document.querySelector(sel!);
    return !!element && getComputedStyle(element).backgroundColor === want;
  }, [selector, rgb]);
}

/**
 * Asserts an Overview card's text. The dashboard shows a cached overview at once and the fresh one when it arrives
 * (a page that changed something marks it stale), so the card may first say what it said before the change: its
 * text is read once it says `expected`, or after `timeoutMs` (and the assertion shows what it said instead).
 */
export async function cardSays(t: Test, card: Locator, expected: string, message?: string, timeoutMs = 10_000): Promise<void> {
  const escaped = expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await card.filter({ hasText: new RegExp(`^${escaped}$`) }).waitFor({ timeout: timeoutMs }).catch(() => {});
  t.equal(await card.textContent(), expected, message ?? 'the Overview card');
}
