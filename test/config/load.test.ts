import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';

describe('configuration', () => {
  it('has working defaults for an empty environment: the embedded database', () => {
    expect(loadConfig({})).toEqual({
      DATABASE_URL: undefined,
      MCP_DRIFT_HOME: './.mcp-drift',
      SMTP_URL: undefined,
      ALERT_FROM: 'mcp-drift@localhost',
      ALERT_TO: [],
      ALERT_MIN_SEVERITY: 'medium',
      ALERT_MAX_ATTEMPTS: 10,
      ALERT_RETRY_SECONDS: 30,
      ALERT_CLAIM_SECONDS: 120,
      SLACK_WEBHOOK_URL: undefined,
      SLACK_MIN_SEVERITY: 'medium',
      WEBHOOK_URL: undefined,
      WEBHOOK_SECRET: undefined,
      WEBHOOK_MIN_SEVERITY: 'medium',
      DIGEST_SECONDS: 60,
      DEFAULT_SCHEDULE: '*/5 * * * *',
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: 8464,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'auto',
      LISTING_MAX_PAGES: 100,
      LISTING_MAX_TOOLS: 10_000,
      LISTING_MAX_BYTES: 16 * 1024 * 1024,
      REQUEST_TIMEOUT_MS: 30_000,
      PROBE_CONCURRENCY: 16,
      HISTORY_DAYS: 400,
      LEASE_SECONDS: 30,
      GATEWAY_POLICY: 'pin',
      CONSOLE_TOKEN: undefined,
      CONSOLE_HOSTS: [],
      TRUST_PROXY: false,
    });
  });

  it('treats empty values as unset and parses lists and numbers', () => {
    const config = loadConfig({
      DATABASE_URL: '',
      ALERT_TO: 'a@example.com, b@example.com',
      DIGEST_SECONDS: '30',
      DEFAULT_SCHEDULE: '*/2 * * * *',
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.ALERT_TO).toEqual(['a@example.com', 'b@example.com']);
    expect(config.DIGEST_SECONDS).toBe(30);
    expect(config.DEFAULT_SCHEDULE).toBe('*/2 * * * *');
  });

  it('lists every problem at once', () => {
    let message = '';
    try {
      loadConfig({
        DATABASE_URL: 'mysql://db/x',
        SMTP_URL: 'http://mail',
        ALERT_TO: 'ops@example.com,nobody',
        ALERT_MIN_SEVERITY: 'huge',
        DEFAULT_SCHEDULE: 'hourly',
        HTTP_PORT: '99999',
        LOG_LEVEL: 'loud',
        LOG_FORMAT: 'fancy',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    for (const key of [
      'DATABASE_URL',
      'SMTP_URL',
      'ALERT_TO',
      'ALERT_MIN_SEVERITY',
      'DEFAULT_SCHEDULE',
      'HTTP_PORT',
      'LOG_LEVEL',
      'LOG_FORMAT',
    ]) {
      expect(message).toContain(key);
    }
    expect(message).toMatch(/^invalid configuration: /);
  });

  it('lists Slack and webhook problems with the others, a missing secret included', () => {
    let message = '';
    try {
      loadConfig({
        SLACK_WEBHOOK_URL: 'http://hooks.slack.com/services/T/B/x',
        WEBHOOK_URL: 'https://user:pw@hooks.example.org/in',
        SLACK_MIN_SEVERITY: 'loud',
        ALERT_CLAIM_SECONDS: '1',
        ALERT_MIN_SEVERITY: 'huge',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(
      'SLACK_WEBHOOK_URL must be an https:// URL (http:// only to 127.0.0.1, ::1 or localhost)',
    );
    expect(message).toContain('WEBHOOK_URL must not hold a user or password');
    expect(message).toContain('WEBHOOK_SECRET must be set when WEBHOOK_URL is');
    for (const key of ['SLACK_MIN_SEVERITY', 'ALERT_CLAIM_SECONDS', 'ALERT_MIN_SEVERITY']) {
      expect(message).toContain(key);
    }
  });

  it('gives the channels the email minimum unless they have their own', () => {
    const config = loadConfig({
      ALERT_MIN_SEVERITY: 'low',
      WEBHOOK_MIN_SEVERITY: 'critical',
      WEBHOOK_URL: 'http://127.0.0.1:8080/hook',
      WEBHOOK_SECRET: 'a-secret-of-16-or-more',
    });
    expect(config.SLACK_MIN_SEVERITY).toBe('low');
    expect(config.WEBHOOK_MIN_SEVERITY).toBe('critical');
  });
});
