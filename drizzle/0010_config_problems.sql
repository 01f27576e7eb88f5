CREATE TABLE "server_config_problems" (
	"server_id" integer PRIMARY KEY NOT NULL,
	"problem" text NOT NULL,
	"noted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"worker_id" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "server_config_problems" ADD CONSTRAINT "server_config_problems_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;