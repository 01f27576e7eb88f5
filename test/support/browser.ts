import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from './mcp-fixtures.js';

/*
 * A real headless Chromium for the console's browser tests: Debian's `chromium` package
 * (.ci/run installs it when missing), driven by playwright-core, which never downloads a
 * browser. Each launch gets a fresh profile (Playwright makes a new user-data-dir per
 * launch and removes it on close).
 */

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether the browser tests can run here. A newcomer's `npm test` passes without Chromium
 * (they are skipped, with a line saying so), as it does without PostgreSQL; CI insists.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env['CI']) {
    throw new Error(`CI requires ${CHROMIUM} for the console's browser tests; .ci/run installs it`);
  }
  console.warn(
    `${CHROMIUM} is missing: the console's browser tests are skipped (apt-get install -y chromium)`,
  );
  return false;
}

/** `extraArgs`: more switches, such as `--host-resolver-rules` to give a name an address. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    timeout: 60_000,
  });
}

/** Screenshots of the browser tests: test-results/ (gitignored). */
export const SCREENSHOTS = path.join(REPO_ROOT, 'test-results', 'console');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const AXE = readFileSync(path.join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's serious and critical violations on the page (WCAG 2.1 A and AA, and axe's best
 * practices). The script goes in through the DevTools protocol, as page.evaluate does:
 * the page's Content-Security-Policy, which allows only the console's own script, stays on.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(context: unknown, options: unknown): Promise<{ violations: unknown[] }> };
      }
    ).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: {
        type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'],
      },
    });
    return result.violations;
  })) as AxeViolation[];
  return violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
}
