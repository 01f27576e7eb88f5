import type { Child, FC } from 'hono/jsx';
import type { PageContext } from './parts.js';

export type Section = 'fleet' | 'changes' | 'alerts' | 'none';

const NAV: { section: Section; href: string; label: string }[] = [
  { section: 'fleet', href: '/', label: 'Fleet' },
  { section: 'changes', href: '/changes', label: 'Changes' },
  { section: 'alerts', href: '/alerts', label: 'Alerts' },
];

/**
 * Every console page. No inline script or style anywhere (the Content-Security-Policy
 * forbids both): the stylesheet and console.js come from /assets/. Without JavaScript the
 * pages read the same; with it, regions marked data-live refresh on the event stream.
 */
export const Layout: FC<{
  title: string;
  section: Section;
  page: PageContext | null;
  children?: Child;
}> = ({ title, section, page, children }) => (
  <>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · mcp-drift`}</title>
        <link rel="stylesheet" href="/assets/console.css" />
        {page ? <script src="/assets/console.js" defer></script> : null}
      </head>
      <body data-revision={page ? String(page.revision) : undefined}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/">
            mcp-drift
          </a>
          {page ? (
            <>
              <nav aria-label="Console">
                <ul>
                  {NAV.map((item) => (
                    <li>
                      <a
                        href={item.href}
                        aria-current={item.section === section ? 'page' : undefined}
                      >
                        {item.label}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
              <span id="live-status" class="live" role="status" hidden></span>
              <form method="post" action="/logout" class="logout">
                <input type="hidden" name="_csrf" value={page.csrf} />
                <span class="who">{page.actor}</span>
                <button type="submit" class="plain">
                  Log out
                </button>
              </form>
            </>
          ) : null}
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  </>
);
