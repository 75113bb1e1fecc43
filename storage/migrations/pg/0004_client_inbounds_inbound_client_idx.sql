DROP INDEX "client_inbounds_inbound_idx";--> statement-breakpoint
CREATE INDEX "client_inbounds_inbound_client_idx" ON "client_inbounds" USING btree ("inbound_id","client_id");