/** How mcp-drift reaches a server: a child process, Streamable HTTP, or legacy SSE. */
export const TRANSPORTS = ['stdio', 'http', 'sse'] as const;
export type Transport = (typeof TRANSPORTS)[number];
