-- Observations become runs (docs/history.md): consecutive attempts of a server with one
-- outcome (the same listing, or the same error code and reason) collapse into the row of
-- the run's first attempt, which keeps its id, start and trigger; a change's observation
-- always starts a run, so every change still points at its row. The run takes the
-- descriptive fields of its latest attempt. The attempts are counted into
-- observation_counts first, so /metrics reports what it reported before.
CREATE TABLE "observation_counts" (
	"trigger" text NOT NULL,
	"outcome" text NOT NULL,
	"bucket" integer NOT NULL,
	"count" bigint NOT NULL,
	"sum_ms" bigint NOT NULL,
	CONSTRAINT "observation_counts_trigger_outcome_bucket_pk" PRIMARY KEY("trigger","outcome","bucket")
);
--> statement-breakpoint
INSERT INTO "observation_counts" ("trigger", "outcome", "bucket", "count", "sum_ms")
SELECT "trigger", "outcome", CASE WHEN "duration_ms" <= 50 THEN 0 WHEN "duration_ms" <= 100 THEN 1 WHEN "duration_ms" <= 250 THEN 2 WHEN "duration_ms" <= 500 THEN 3 WHEN "duration_ms" <= 1000 THEN 4 WHEN "duration_ms" <= 2500 THEN 5 WHEN "duration_ms" <= 5000 THEN 6 WHEN "duration_ms" <= 10000 THEN 7 WHEN "duration_ms" <= 30000 THEN 8 WHEN "duration_ms" <= 60000 THEN 9 ELSE 10 END, count(*), coalesce(sum("duration_ms"), 0)
FROM "observations" GROUP BY 1, 2, 3;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "last_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "count" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "last_poll_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "last_notification_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "last_startup_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "last_manual_at" timestamp with time zone;--> statement-breakpoint
WITH "marked" AS (
  SELECT o."id", o."server_id",
    CASE WHEN lag(o."outcome") OVER w IS DISTINCT FROM o."outcome"
      OR lag(o."listing_hash") OVER w IS DISTINCT FROM o."listing_hash"
      OR lag(o."error_code") OVER w IS DISTINCT FROM o."error_code"
      OR lag(o."error_message") OVER w IS DISTINCT FROM o."error_message"
      OR EXISTS (SELECT 1 FROM "changes" c WHERE c."observation_id" = o."id")
    THEN 1 ELSE 0 END AS "starts"
  FROM "observations" o
  WINDOW w AS (PARTITION BY o."server_id" ORDER BY o."id")
), "numbered" AS (
  SELECT "id", "server_id", sum("starts") OVER (PARTITION BY "server_id" ORDER BY "id") AS "run"
  FROM "marked"
), "runs" AS (
  SELECT min(n."id") AS "first_id", max(n."id") AS "last_id", count(*)::integer AS "n",
    max(o."started_at") AS "last_seen",
    max(o."started_at") FILTER (WHERE o."trigger" = 'poll') AS "last_poll", max(o."started_at") FILTER (WHERE o."trigger" = 'notification') AS "last_notification",
    max(o."started_at") FILTER (WHERE o."trigger" = 'startup') AS "last_startup", max(o."started_at") FILTER (WHERE o."trigger" = 'manual') AS "last_manual"
  FROM "numbered" n JOIN "observations" o ON o."id" = n."id"
  GROUP BY n."server_id", n."run"
)
UPDATE "observations" AS o SET
  "count" = r."n", "last_seen_at" = r."last_seen", "last_poll_at" = r."last_poll",
  "last_notification_at" = r."last_notification", "last_startup_at" = r."last_startup",
  "last_manual_at" = r."last_manual", "duration_ms" = l."duration_ms",
  "protocol_version" = l."protocol_version", "server_info" = l."server_info",
  "capabilities" = l."capabilities", "ttl_ms" = l."ttl_ms", "cache_scope" = l."cache_scope",
  "pages" = l."pages", "worker_id" = l."worker_id"
FROM "runs" r JOIN "observations" l ON l."id" = r."last_id"
WHERE o."id" = r."first_id";--> statement-breakpoint
DELETE FROM "observations" WHERE "last_seen_at" IS NULL;--> statement-breakpoint
ALTER TABLE "observations" ALTER COLUMN "last_seen_at" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "observations_server_id" ON "observations" USING btree ("server_id","id");
