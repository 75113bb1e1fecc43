CREATE TABLE `node_client_counters` (
	`node_id` integer NOT NULL,
	`email` text NOT NULL,
	`up` integer DEFAULT 0 NOT NULL,
	`down` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`node_id`, `email`),
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `node_inbounds` (
	`node_id` integer NOT NULL,
	`inbound_id` integer NOT NULL,
	`remote_id` integer NOT NULL,
	`remote_tag` text NOT NULL,
	`pushed_hash` text DEFAULT '' NOT NULL,
	PRIMARY KEY(`node_id`, `inbound_id`),
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `node_samples` (
	`node_id` integer NOT NULL,
	`t` integer NOT NULL,
	`cpu` real DEFAULT 0 NOT NULL,
	`mem` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`node_id`, `t`),
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
