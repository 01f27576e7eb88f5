/** The MCP hosts whose config files `server import` reads. */
export const HOSTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf'] as const;
export type Host = (typeof HOSTS)[number];

/** Where an imported server came from: a known host's file, or a generic `mcpServers` file. */
export const IMPORT_SOURCES = [...HOSTS, 'generic'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];
