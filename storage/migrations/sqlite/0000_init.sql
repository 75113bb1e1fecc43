CREATE TABLE `api_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`token` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_name_unique` ON `api_tokens` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_unique` ON `api_tokens` (`token`);--> statement-breakpoint
CREATE TABLE `client_groups` (
	`name` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `client_inbounds` (
	`client_id` integer NOT NULL,
	`inbound_id` integer NOT NULL,
	PRIMARY KEY(`client_id`, `inbound_id`),
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`inbound_id`) REFERENCES `inbounds`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `client_inbounds_inbound_idx` ON `client_inbounds` (`inbound_id`);--> statement-breakpoint
CREATE TABLE `client_ips` (
	`email` text NOT NULL,
	`ip` text NOT NULL,
	`last_seen` integer NOT NULL,
	PRIMARY KEY(`email`, `ip`)
);
--> statement-breakpoint
CREATE TABLE `client_tombstones` (
	`email` text PRIMARY KEY NOT NULL,
	`deleted_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `client_traffics` (
	`email` text PRIMARY KEY NOT NULL,
	`up` integer DEFAULT 0 NOT NULL,
	`down` integer DEFAULT 0 NOT NULL,
	`enable` integer DEFAULT true NOT NULL,
	`last_online` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `clients` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`sub_id` text DEFAULT '' NOT NULL,
	`uuid` text DEFAULT '' NOT NULL,
	`password` text DEFAULT '' NOT NULL,
	`auth` text DEFAULT '' NOT NULL,
	`flow` text DEFAULT '' NOT NULL,
	`security` text DEFAULT '' NOT NULL,
	`method` text DEFAULT '' NOT NULL,
	`total_bytes` integer DEFAULT 0 NOT NULL,
	`expiry_time` integer DEFAULT 0 NOT NULL,
	`enable` integer DEFAULT true NOT NULL,
	`limit_ip` integer DEFAULT 0 NOT NULL,
	`tg_id` integer DEFAULT 0 NOT NULL,
	`comment` text DEFAULT '' NOT NULL,
	`group_name` text DEFAULT '' NOT NULL,
	`reverse` text,
	`reset_days` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `clients_email_unique` ON `clients` (`email`);--> statement-breakpoint
CREATE INDEX `clients_sub_id_idx` ON `clients` (`sub_id`);--> statement-breakpoint
CREATE INDEX `clients_group_idx` ON `clients` (`group_name`);--> statement-breakpoint
CREATE INDEX `clients_expiry_idx` ON `clients` (`expiry_time`);--> statement-breakpoint
CREATE TABLE `custom_geo` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`alias` text NOT NULL,
	`url` text NOT NULL,
	`status` text DEFAULT '' NOT NULL,
	`last_download` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_geo_type_alias_idx` ON `custom_geo` (`type`,`alias`);--> statement-breakpoint
CREATE TABLE `fallbacks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`master_id` integer NOT NULL,
	`child_id` integer NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`alpn` text DEFAULT '' NOT NULL,
	`path` text DEFAULT '' NOT NULL,
	`xver` integer DEFAULT 0 NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`master_id`) REFERENCES `inbounds`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`child_id`) REFERENCES `inbounds`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `fallbacks_master_idx` ON `fallbacks` (`master_id`);--> statement-breakpoint
CREATE TABLE `inbounds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer DEFAULT 1 NOT NULL,
	`up` integer DEFAULT 0 NOT NULL,
	`down` integer DEFAULT 0 NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`remark` text DEFAULT '' NOT NULL,
	`enable` integer DEFAULT true NOT NULL,
	`expiry_time` integer DEFAULT 0 NOT NULL,
	`listen` text DEFAULT '' NOT NULL,
	`port` integer NOT NULL,
	`protocol` text NOT NULL,
	`settings` text DEFAULT '{}' NOT NULL,
	`stream_settings` text DEFAULT '{}' NOT NULL,
	`sniffing` text DEFAULT '{}' NOT NULL,
	`tag` text NOT NULL,
	`node_id` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbounds_tag_unique` ON `inbounds` (`tag`);--> statement-breakpoint
CREATE INDEX `inbounds_port_idx` ON `inbounds` (`port`);--> statement-breakpoint
CREATE TABLE `nodes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`remark` text DEFAULT '' NOT NULL,
	`scheme` text DEFAULT 'https' NOT NULL,
	`address` text NOT NULL,
	`port` integer NOT NULL,
	`base_path` text DEFAULT '/' NOT NULL,
	`api_token` text DEFAULT '' NOT NULL,
	`enable` integer DEFAULT true NOT NULL,
	`allow_private_address` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'unknown' NOT NULL,
	`last_heartbeat` integer DEFAULT 0 NOT NULL,
	`latency_ms` integer DEFAULT 0 NOT NULL,
	`core_version` text DEFAULT '' NOT NULL,
	`panel_version` text DEFAULT '' NOT NULL,
	`cpu_pct` real DEFAULT 0 NOT NULL,
	`mem_pct` real DEFAULT 0 NOT NULL,
	`uptime_secs` integer DEFAULT 0 NOT NULL,
	`last_error` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `outbound_traffics` (
	`tag` text PRIMARY KEY NOT NULL,
	`up` integer DEFAULT 0 NOT NULL,
	`down` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`password_hash` text NOT NULL,
	`session_version` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (`username`);