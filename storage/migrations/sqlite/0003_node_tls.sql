ALTER TABLE `nodes` ADD `tls_mode` text DEFAULT 'verify' NOT NULL;--> statement-breakpoint
ALTER TABLE `nodes` ADD `tls_pin` text DEFAULT '' NOT NULL;