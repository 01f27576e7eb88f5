import type { FC } from 'hono/jsx';
import { Layout } from './layout.js';
import { Shown, type PageContext } from './parts.js';

export const ErrorPage: FC<{
  page: PageContext | null;
  title: string;
  message: string;
  /** Where to go to put it right, before the way back to the fleet. */
  next?: { href: string; text: string };
}> = ({ page, title, message, next }) => (
  <Layout title={title} section="none" page={page}>
    <h1>{title}</h1>
    <p>
      <Shown text={message} />
    </p>
    {next ? (
      <p>
        <a href={next.href}>{next.text}</a>
      </p>
    ) : null}
    <p>
      <a href="/">Back to the fleet</a>
    </p>
  </Layout>
);
