CREATE TABLE "node_client_counters" (
	"node_id" integer NOT NULL,
	"email" text NOT NULL,
	"up" bigint DEFAULT 0 NOT NULL,
	"down" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "node_client_counters_node_id_email_pk" PRIMARY KEY("node_id","email")
);
--> statement-breakpoint
CREATE TABLE "node_inbounds" (
	"node_id" integer NOT NULL,
	"inbound_id" bigint NOT NULL,
	"remote_id" bigint NOT NULL,
	"remote_tag" text NOT NULL,
	"pushed_hash" text DEFAULT '' NOT NULL,
	CONSTRAINT "node_inbounds_node_id_inbound_id_pk" PRIMARY KEY("node_id","inbound_id")
);
--> statement-breakpoint
CREATE TABLE "node_samples" (
	"node_id" integer NOT NULL,
	"t" bigint NOT NULL,
	"cpu" double precision DEFAULT 0 NOT NULL,
	"mem" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "node_samples_node_id_t_pk" PRIMARY KEY("node_id","t")
);
--> statement-breakpoint
ALTER TABLE "node_client_counters" ADD CONSTRAINT "node_client_counters_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "node_inbounds" ADD CONSTRAINT "node_inbounds_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "node_samples" ADD CONSTRAINT "node_samples_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."nodes"("id") ON DELETE cascade ON UPDATE no action;