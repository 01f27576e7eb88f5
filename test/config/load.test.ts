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
      DIGEST_SECONDS: 60,
      DEFAULT_SCHEDULE: '*/5 * * * *',
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: 8464,
      LOG_LEVEL: 'info',
      LISTING_MAX_PAGES: 100,
      LISTING_MAX_TOOLS: 10_000,
      LISTING_MAX_BYTES: 16 * 1024 * 1024,
      REQUEST_TIMEOUT_MS: 30_000,
      PROBE_CONCURRENCY: 16,
      LEASE_SECONDS: 30,
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
    ]) {
      expect(message).toContain(key);
    }
    expect(message).toMatch(/^invalid configuration: /);
  });
});
