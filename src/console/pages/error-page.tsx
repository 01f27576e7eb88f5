import type { FC } from 'hono/jsx';
import { Layout } from './layout.js';
import { Shown, type PageContext } from './parts.js';

export const ErrorPage: FC<{ page: PageContext | null; title: string; message: string }> = ({
  page,
  title,
  message,
}) => (
  <Layout title={title} section="none" page={page}>
    <h1>{title}</h1>
    <p>
      <Shown text={message} />
    </p>
    <p>
      <a href="/">Back to the fleet</a>
    </p>
  </Layout>
);
