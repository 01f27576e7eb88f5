CREATE TABLE "oauth_tokens" (
	"server_id" integer PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"authorization_server" text,
	"scope" text,
	"expires_at" timestamp with time zone,
	"access_token" text,
	"refresh_token" text,
	"client_information" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_tokens_state" CHECK ("oauth_tokens"."state" in ('authorized', 'needs_login'))
);
--> statement-breakpoint
ALTER TABLE "changes" ADD COLUMN "since_baseline" jsonb;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "oauth" jsonb;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD CONSTRAINT "oauth_tokens_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "servers" ADD CONSTRAINT "servers_oauth" CHECK ("servers"."oauth" is null or ("servers"."transport" in ('http', 'sse') and "servers"."oauth"->>'grant' in ('authorization_code', 'client_credentials')));