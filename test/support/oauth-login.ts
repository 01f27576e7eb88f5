import type { Browser } from 'playwright-core';

/*
 * A person's login at the test authorization server, in headless Chromium: oidc-provider's
 * own login page (any login name) and consent page, then its redirect to mcp-drift's
 * loopback listener, whose page says the login is done.
 */
export async function loginInBrowser(
  browser: Browser,
  authorizationUrl: string,
  login = 'alice',
): Promise<string> {
  const context = await browser.newContext();
  try {
    // The provider's pages import a web font; nothing leaves loopback in a test.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
    const page = await context.newPage();
    await page.goto(authorizationUrl, { waitUntil: 'domcontentloaded' });
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'any password');
    await page.click('button[type="submit"]');
    const callback = /^http:\/\/127\.0\.0\.1:\d+\/callback\?/;
    // The consent page, unless the provider remembers an earlier consent of this person.
    const consent = page.locator('input[name="prompt"][value="consent"]');
    await Promise.race([
      consent.waitFor({ state: 'attached' }),
      page.waitForURL(callback, { waitUntil: 'domcontentloaded' }),
    ]).catch(async (error: unknown) => {
      throw new Error(
        `after the login page: ${page.url()}\n${(await page.content()).replace(/<style>[\s\S]*<\/style>/, '').slice(0, 3000)}`,
        {
          cause: error,
        },
      );
    });
    if (!callback.test(page.url())) await page.click('button[type="submit"]');
    await page.waitForURL(callback, { waitUntil: 'domcontentloaded' });
    return (await page.textContent('body')) ?? '';
  } finally {
    await context.close();
  }
}

/** The authorization URL `server login` printed on stderr. */
export function authorizationUrlIn(output: string): string | undefined {
  return /^\s+(http\S+\/auth\?\S+)$/m.exec(output)?.[1];
}
