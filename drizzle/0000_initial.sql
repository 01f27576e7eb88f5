CREATE TABLE "alerts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"server_id" integer NOT NULL,
	"change_id" bigint NOT NULL,
	"severity" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"recipients" jsonb NOT NULL,
	"message_id" text NOT NULL,
	"digest_of" bigint,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"acknowledged_at" timestamp with time zone,
	CONSTRAINT "alerts_change_id_unique" UNIQUE("change_id"),
	CONSTRAINT "alerts_message_id_unique" UNIQUE("message_id")
);
--> statement-breakpoint
CREATE TABLE "baselines" (
	"server_id" integer PRIMARY KEY NOT NULL,
	"listing_hash" text NOT NULL,
	"approved_at" timestamp with time zone DEFAULT now() NOT NULL,
	"approved_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"server_id" integer NOT NULL,
	"previous_change_id" bigint,
	"from_hash" text NOT NULL,
	"to_hash" text NOT NULL,
	"observation_id" bigint NOT NULL,
	"detected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"severity" text NOT NULL,
	"notification_seen" boolean,
	"exposure" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "changes_server_previous" UNIQUE NULLS NOT DISTINCT("server_id","previous_change_id")
);
--> statement-breakpoint
CREATE TABLE "findings" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"change_id" bigint NOT NULL,
	"tool" text,
	"kind" text NOT NULL,
	"severity" text NOT NULL,
	"field" text,
	"before" jsonb,
	"after" jsonb,
	"explanation" text NOT NULL,
	"record" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "held_sessions" (
	"server_id" integer PRIMARY KEY NOT NULL,
	"worker_id" text NOT NULL,
	"connected_at" timestamp with time zone NOT NULL,
	"listing_hash" text,
	"listed_at" timestamp with time zone,
	"last_notification_at" timestamp with time zone,
	"list_changed_advertised" boolean
);
--> statement-breakpoint
CREATE TABLE "listings" (
	"hash" text PRIMARY KEY NOT NULL,
	"body" text NOT NULL,
	"tool_hashes" jsonb NOT NULL,
	"tool_count" integer NOT NULL,
	"byte_size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "observations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"server_id" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"trigger" text NOT NULL,
	"outcome" text NOT NULL,
	"listing_hash" text,
	"error_code" text,
	"error_message" text,
	"protocol_version" text,
	"server_info" jsonb,
	"capabilities" jsonb,
	"ttl_ms" bigint,
	"cache_scope" text,
	"pages" integer,
	"worker_id" text,
	CONSTRAINT "observations_outcome_fields" CHECK (("observations"."outcome" = 'ok' and "observations"."listing_hash" is not null)
        or ("observations"."outcome" = 'error' and "observations"."listing_hash" is null and "observations"."error_message" is not null))
);
--> statement-breakpoint
CREATE TABLE "outages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"server_id" integer NOT NULL,
	"down_at" timestamp with time zone NOT NULL,
	"up_at" timestamp with time zone,
	"reason" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "servers" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"transport" text NOT NULL,
	"command" text,
	"args" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"env" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"cwd" text,
	"url" text,
	"headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"trust" text DEFAULT 'untrusted' NOT NULL,
	"schedule" text,
	"notify" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"hold" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"alert_min_severity" text,
	"protocol_era" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "servers_name_unique" UNIQUE("name"),
	CONSTRAINT "servers_transport_fields" CHECK (("servers"."transport" = 'stdio' and "servers"."command" is not null and "servers"."url" is null)
        or ("servers"."transport" in ('http', 'sse') and "servers"."url" is not null and "servers"."command" is null))
);
--> statement-breakpoint
CREATE TABLE "worker_leases" (
	"server_id" integer PRIMARY KEY NOT NULL,
	"worker_id" text NOT NULL,
	"acquired_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_change_id_changes_id_fk" FOREIGN KEY ("change_id") REFERENCES "public"."changes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "baselines" ADD CONSTRAINT "baselines_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "baselines" ADD CONSTRAINT "baselines_listing_hash_listings_hash_fk" FOREIGN KEY ("listing_hash") REFERENCES "public"."listings"("hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_from_hash_listings_hash_fk" FOREIGN KEY ("from_hash") REFERENCES "public"."listings"("hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_to_hash_listings_hash_fk" FOREIGN KEY ("to_hash") REFERENCES "public"."listings"("hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_observation_id_observations_id_fk" FOREIGN KEY ("observation_id") REFERENCES "public"."observations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings" ADD CONSTRAINT "findings_change_id_changes_id_fk" FOREIGN KEY ("change_id") REFERENCES "public"."changes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "held_sessions" ADD CONSTRAINT "held_sessions_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "held_sessions" ADD CONSTRAINT "held_sessions_listing_hash_listings_hash_fk" FOREIGN KEY ("listing_hash") REFERENCES "public"."listings"("hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "observations" ADD CONSTRAINT "observations_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "observations" ADD CONSTRAINT "observations_listing_hash_listings_hash_fk" FOREIGN KEY ("listing_hash") REFERENCES "public"."listings"("hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outages" ADD CONSTRAINT "outages_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "worker_leases" ADD CONSTRAINT "worker_leases_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alerts_status_next" ON "alerts" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "changes_server_detected" ON "changes" USING btree ("server_id","detected_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "findings_change" ON "findings" USING btree ("change_id");--> statement-breakpoint
CREATE INDEX "observations_server_started" ON "observations" USING btree ("server_id","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "outages_one_open" ON "outages" USING btree ("server_id") WHERE "outages"."up_at" is null;