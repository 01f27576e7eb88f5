ALTER TABLE "listings" ADD COLUMN "surfaces" jsonb;--> statement-breakpoint
ALTER TABLE "observations" ADD COLUMN "cache_hints" jsonb;