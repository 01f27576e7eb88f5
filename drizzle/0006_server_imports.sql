CREATE TABLE "server_imports" (
	"server_id" integer PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"source_path" text NOT NULL,
	"entry_name" text NOT NULL,
	"entry_hash" text NOT NULL,
	"imported_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "server_imports_host" CHECK ("server_imports"."host" in ('claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf', 'generic'))
);
--> statement-breakpoint
ALTER TABLE "server_imports" ADD CONSTRAINT "server_imports_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;