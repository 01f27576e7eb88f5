CREATE TABLE "deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"alert_id" bigint NOT NULL,
	"server_id" integer NOT NULL,
	"channel" text NOT NULL,
	"destination" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"key" text NOT NULL,
	"digest_of" bigint,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "deliveries_key_unique" UNIQUE("key")
);
--> statement-breakpoint
ALTER TABLE "alerts" DROP CONSTRAINT "alerts_message_id_unique";--> statement-breakpoint
DROP INDEX "alerts_status_next";--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "slack_url" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "webhook_url" text;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deliveries_alert" ON "deliveries" USING btree ("alert_id");--> statement-breakpoint
CREATE INDEX "deliveries_due" ON "deliveries" USING btree ("channel","next_attempt_at") WHERE "deliveries"."status" = 'pending' and "deliveries"."digest_of" is null;--> statement-breakpoint
CREATE INDEX "deliveries_server_pending" ON "deliveries" USING btree ("server_id") WHERE "deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "deliveries_digest" ON "deliveries" USING btree ("digest_of") WHERE "deliveries"."digest_of" is not null;--> statement-breakpoint
CREATE INDEX "alerts_server" ON "alerts" USING btree ("server_id","id");--> statement-breakpoint
-- Data: each of today's alerts becomes one email delivery per recipient, keeping its status,
-- attempts, last error and next attempt, so pending alerts stay pending and are sent by the
-- new dispatcher. The first recipient keeps the alert's Message-ID (a message cut mid-send
-- before the upgrade is resent as the same message). An alert without recipients gets no
-- delivery: it is `undeliverable`, which is what it was (nobody was told), and
-- `alerts retry` sends it once a destination is set. An alert acknowledged before it was
-- sent keeps cancelled deliveries.
INSERT INTO "deliveries" ("alert_id", "server_id", "channel", "destination", "status", "key", "attempts", "last_error", "next_attempt_at", "created_at", "delivered_at")
SELECT a."id", a."server_id", 'email', r."address",
  CASE
    WHEN a."status" = 'pending' THEN 'pending'
    WHEN a."status" = 'sent' THEN 'delivered'
    WHEN a."status" = 'failed' THEN 'failed'
    WHEN a."sent_at" IS NOT NULL THEN 'delivered'
    ELSE 'cancelled'
  END,
  CASE
    WHEN r."position" = 1 THEN regexp_replace(a."message_id", '^<(.*)@mcp-drift>$', '\1')
    ELSE gen_random_uuid()::text
  END,
  a."attempts", a."last_error", a."next_attempt_at", a."created_at", a."sent_at"
FROM "alerts" a
CROSS JOIN LATERAL jsonb_array_elements_text(a."recipients") WITH ORDINALITY AS r("address", "position");--> statement-breakpoint
-- A digest member's delivery joins the first alert's delivery to the same address.
UPDATE "deliveries" SET "digest_of" = head."id"
FROM "alerts" a, "deliveries" head
WHERE a."id" = "deliveries"."alert_id" AND a."digest_of" IS NOT NULL
  AND head."alert_id" = a."digest_of" AND head."channel" = "deliveries"."channel"
  AND head."destination" = "deliveries"."destination";--> statement-breakpoint
ALTER TABLE "alerts" DROP COLUMN "status";--> statement-breakpoint
ALTER TABLE "alerts" DROP COLUMN "recipients";--> statement-breakpoint
ALTER TABLE "alerts" DROP COLUMN "message_id";--> statement-breakpoint
ALTER TABLE "alerts" DROP COLUMN "digest_of";--> statement-breakpoint
ALTER TABLE "alerts" DROP COLUMN "attempts";--> statement-breakpoint
ALTER TABLE "alerts" DROP COLUMN "last_error";--> statement-breakpoint
ALTER TABLE "alerts" DROP COLUMN "next_attempt_at";--> statement-breakpoint
ALTER TABLE "alerts" DROP COLUMN "sent_at";