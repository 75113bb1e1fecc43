CREATE TABLE "api_tokens" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"token" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "api_tokens_name_unique" UNIQUE("name"),
	CONSTRAINT "api_tokens_token_unique" UNIQUE("token")
);
--> statement-breakpoint
CREATE TABLE "client_groups" (
	"name" text PRIMARY KEY NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "client_inbounds" (
	"client_id" integer NOT NULL,
	"inbound_id" integer NOT NULL,
	CONSTRAINT "client_inbounds_client_id_inbound_id_pk" PRIMARY KEY("client_id","inbound_id")
);
--> statement-breakpoint
CREATE TABLE "client_ips" (
	"email" text NOT NULL,
	"ip" text NOT NULL,
	"last_seen" bigint NOT NULL,
	CONSTRAINT "client_ips_email_ip_pk" PRIMARY KEY("email","ip")
);
--> statement-breakpoint
CREATE TABLE "client_tombstones" (
	"email" text PRIMARY KEY NOT NULL,
	"deleted_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "client_traffics" (
	"email" text PRIMARY KEY NOT NULL,
	"up" bigint DEFAULT 0 NOT NULL,
	"down" bigint DEFAULT 0 NOT NULL,
	"enable" boolean DEFAULT true NOT NULL,
	"last_online" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "clients" (
	"id" serial PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"sub_id" text DEFAULT '' NOT NULL,
	"uuid" text DEFAULT '' NOT NULL,
	"password" text DEFAULT '' NOT NULL,
	"auth" text DEFAULT '' NOT NULL,
	"flow" text DEFAULT '' NOT NULL,
	"security" text DEFAULT '' NOT NULL,
	"method" text DEFAULT '' NOT NULL,
	"total_bytes" bigint DEFAULT 0 NOT NULL,
	"expiry_time" bigint DEFAULT 0 NOT NULL,
	"enable" boolean DEFAULT true NOT NULL,
	"limit_ip" bigint DEFAULT 0 NOT NULL,
	"tg_id" bigint DEFAULT 0 NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"group_name" text DEFAULT '' NOT NULL,
	"reverse" text,
	"reset_days" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "clients_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "custom_geo" (
	"id" serial PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"alias" text NOT NULL,
	"url" text NOT NULL,
	"status" text DEFAULT '' NOT NULL,
	"last_download" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fallbacks" (
	"id" serial PRIMARY KEY NOT NULL,
	"master_id" integer NOT NULL,
	"child_id" integer NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"alpn" text DEFAULT '' NOT NULL,
	"path" text DEFAULT '' NOT NULL,
	"xver" bigint DEFAULT 0 NOT NULL,
	"sort_order" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inbounds" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" bigint DEFAULT 1 NOT NULL,
	"up" bigint DEFAULT 0 NOT NULL,
	"down" bigint DEFAULT 0 NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"enable" boolean DEFAULT true NOT NULL,
	"expiry_time" bigint DEFAULT 0 NOT NULL,
	"listen" text DEFAULT '' NOT NULL,
	"port" bigint NOT NULL,
	"protocol" text NOT NULL,
	"settings" text DEFAULT '{}' NOT NULL,
	"stream_settings" text DEFAULT '{}' NOT NULL,
	"sniffing" text DEFAULT '{}' NOT NULL,
	"tag" text NOT NULL,
	"node_id" integer,
	CONSTRAINT "inbounds_tag_unique" UNIQUE("tag")
);
--> statement-breakpoint
CREATE TABLE "nodes" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"scheme" text DEFAULT 'https' NOT NULL,
	"address" text NOT NULL,
	"port" bigint NOT NULL,
	"base_path" text DEFAULT '/' NOT NULL,
	"api_token" text DEFAULT '' NOT NULL,
	"enable" boolean DEFAULT true NOT NULL,
	"allow_private_address" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'unknown' NOT NULL,
	"last_heartbeat" bigint DEFAULT 0 NOT NULL,
	"latency_ms" bigint DEFAULT 0 NOT NULL,
	"core_version" text DEFAULT '' NOT NULL,
	"panel_version" text DEFAULT '' NOT NULL,
	"cpu_pct" double precision DEFAULT 0 NOT NULL,
	"mem_pct" double precision DEFAULT 0 NOT NULL,
	"uptime_secs" bigint DEFAULT 0 NOT NULL,
	"last_error" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbound_traffics" (
	"tag" text PRIMARY KEY NOT NULL,
	"up" bigint DEFAULT 0 NOT NULL,
	"down" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" serial PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"session_version" bigint DEFAULT 1 NOT NULL,
	CONSTRAINT "users_username_unique" UNIQUE("username")
);
--> statement-breakpoint
ALTER TABLE "client_inbounds" ADD CONSTRAINT "client_inbounds_client_id_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_inbounds" ADD CONSTRAINT "client_inbounds_inbound_id_inbounds_id_fk" FOREIGN KEY ("inbound_id") REFERENCES "public"."inbounds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fallbacks" ADD CONSTRAINT "fallbacks_master_id_inbounds_id_fk" FOREIGN KEY ("master_id") REFERENCES "public"."inbounds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fallbacks" ADD CONSTRAINT "fallbacks_child_id_inbounds_id_fk" FOREIGN KEY ("child_id") REFERENCES "public"."inbounds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "client_inbounds_inbound_idx" ON "client_inbounds" USING btree ("inbound_id");--> statement-breakpoint
CREATE INDEX "clients_sub_id_idx" ON "clients" USING btree ("sub_id");--> statement-breakpoint
CREATE INDEX "clients_group_idx" ON "clients" USING btree ("group_name");--> statement-breakpoint
CREATE INDEX "clients_expiry_idx" ON "clients" USING btree ("expiry_time");--> statement-breakpoint
CREATE UNIQUE INDEX "custom_geo_type_alias_idx" ON "custom_geo" USING btree ("type","alias");--> statement-breakpoint
CREATE INDEX "fallbacks_master_idx" ON "fallbacks" USING btree ("master_id");--> statement-breakpoint
CREATE INDEX "inbounds_port_idx" ON "inbounds" USING btree ("port");