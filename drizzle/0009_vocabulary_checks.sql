ALTER TABLE "alerts" ADD CONSTRAINT "alerts_severity" CHECK ("alerts"."severity" in ('critical', 'high', 'medium', 'low', 'info'));--> statement-breakpoint
ALTER TABLE "baselines" ADD CONSTRAINT "baselines_approved_by" CHECK ("baselines"."approved_by" in ('first-listing', 'operator'));--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_severity" CHECK ("changes"."severity" in ('critical', 'high', 'medium', 'low', 'info', 'none'));--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_channel" CHECK ("deliveries"."channel" in ('email', 'slack', 'webhook'));--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_status" CHECK ("deliveries"."status" in ('pending', 'delivered', 'failed', 'cancelled'));--> statement-breakpoint
ALTER TABLE "findings" ADD CONSTRAINT "findings_severity" CHECK ("findings"."severity" in ('critical', 'high', 'medium', 'low', 'info'));--> statement-breakpoint
ALTER TABLE "observation_counts" ADD CONSTRAINT "observation_counts_trigger" CHECK ("observation_counts"."trigger" in ('poll', 'notification', 'startup', 'manual'));--> statement-breakpoint
ALTER TABLE "observation_counts" ADD CONSTRAINT "observation_counts_outcome" CHECK ("observation_counts"."outcome" in ('ok', 'error'));--> statement-breakpoint
ALTER TABLE "observations" ADD CONSTRAINT "observations_trigger" CHECK ("observations"."trigger" in ('poll', 'notification', 'startup', 'manual'));--> statement-breakpoint
ALTER TABLE "observations" ADD CONSTRAINT "observations_outcome" CHECK ("observations"."outcome" in ('ok', 'error'));--> statement-breakpoint
ALTER TABLE "operator_actions" ADD CONSTRAINT "operator_actions_via" CHECK ("operator_actions"."via" in ('console', 'api', 'cli'));--> statement-breakpoint
ALTER TABLE "operator_actions" ADD CONSTRAINT "operator_actions_action" CHECK ("operator_actions"."action" in ('baseline.approve', 'alert.ack', 'alert.retry', 'server.enable', 'server.disable'));--> statement-breakpoint
ALTER TABLE "servers" ADD CONSTRAINT "servers_transport" CHECK ("servers"."transport" in ('stdio', 'http', 'sse'));--> statement-breakpoint
ALTER TABLE "servers" ADD CONSTRAINT "servers_trust" CHECK ("servers"."trust" in ('trusted', 'partial', 'untrusted'));--> statement-breakpoint
ALTER TABLE "servers" ADD CONSTRAINT "servers_alert_min_severity" CHECK ("servers"."alert_min_severity" in ('critical', 'high', 'medium', 'low', 'info'));--> statement-breakpoint
ALTER TABLE "servers" ADD CONSTRAINT "servers_protocol_era" CHECK ("servers"."protocol_era" in ('2025', '2026'));