CREATE TABLE "gateway_refusals" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"server_id" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"tool" text NOT NULL,
	"reason" text NOT NULL,
	"change_id" bigint,
	CONSTRAINT "gateway_refusals_reason" CHECK ("gateway_refusals"."reason" in ('relaxation', 'content'))
);
--> statement-breakpoint
CREATE TABLE "gateway_tokens" (
	"server_id" integer PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gateway_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN "surfaces" jsonb;--> statement-breakpoint
ALTER TABLE "outages" ADD COLUMN "kind" text DEFAULT 'connection' NOT NULL;--> statement-breakpoint
ALTER TABLE "gateway_refusals" ADD CONSTRAINT "gateway_refusals_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway_tokens" ADD CONSTRAINT "gateway_tokens_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "gateway_refusals_server" ON "gateway_refusals" USING btree ("server_id","id");--> statement-breakpoint
ALTER TABLE "outages" ADD CONSTRAINT "outages_kind" CHECK ("outages"."kind" in ('connection', 'auth'));