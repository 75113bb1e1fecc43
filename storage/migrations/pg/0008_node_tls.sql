ALTER TABLE "nodes" ADD COLUMN "tls_mode" text DEFAULT 'verify' NOT NULL;--> statement-breakpoint
ALTER TABLE "nodes" ADD COLUMN "tls_pin" text DEFAULT '' NOT NULL;