import type { FC } from 'hono/jsx';
import { Layout } from './layout.js';

/** Why the login page is shown again, each with a fixed text: nothing from the request. */
export type LoginProblem = 'wrong-token' | 'used-link' | 'throttled';

const PROBLEMS: Record<LoginProblem, string> = {
  'wrong-token': 'That is not the console token.',
  'used-link':
    'That login link has been used already, or has expired: each works once. Log in with the token.',
  throttled: 'Too many wrong tokens from this address: wait a while, then try again.',
};

export const LoginPage: FC<{ next: string; problem?: LoginProblem | undefined }> = ({
  next,
  problem,
}) => (
  <Layout title="Log in" section="none" page={null}>
    <h1>Log in to the console</h1>
    {problem ? (
      <p class="warning" role="alert">
        {PROBLEMS[problem]}
      </p>
    ) : null}
    <p>
      The token is <code>CONSOLE_TOKEN</code>, or the one <code>mcp-drift serve</code> made on its
      first start and keeps in <code>MCP_DRIFT_HOME/console-token</code>.
    </p>
    <form method="post" action="/login" class="login">
      <input type="hidden" name="next" value={next} />
      <label>
        Console token
        <input type="password" name="token" required autocomplete="current-password" />
      </label>
      <label>
        Your name (recorded with what you approve or acknowledge)
        <input type="text" name="name" maxlength={64} autocomplete="name" />
      </label>
      <button type="submit" class="primary">
        Log in
      </button>
    </form>
  </Layout>
);
