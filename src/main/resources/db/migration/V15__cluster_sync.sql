-- Clusters kept in sync from the system that already knows them (issue 18): a Kubernetes NodeList,
-- a Slurm node dump, a Kubernetes API server. The source, the last sync that was applied and what
-- it contributed, and the last failure of a scheduled sync (the last good state stays, the failure
-- is shown next to it). Null on clusters written by the fleet document. Portable across H2 and
-- PostgreSQL.
ALTER TABLE cluster ADD COLUMN sync_source VARCHAR(64);
ALTER TABLE cluster ADD COLUMN sync_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE cluster ADD COLUMN sync_nodes INTEGER;
ALTER TABLE cluster ADD COLUMN sync_gpus INTEGER;
ALTER TABLE cluster ADD COLUMN sync_mig_instances INTEGER;
ALTER TABLE cluster ADD COLUMN sync_skipped_nodes INTEGER;
ALTER TABLE cluster ADD COLUMN sync_failed_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE cluster ADD COLUMN sync_error VARCHAR(1024);
