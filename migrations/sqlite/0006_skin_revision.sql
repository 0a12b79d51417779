-- rigd schema, version 6: every skin row records the shot version that wrote it.
-- With the shot's never-reused seq and the layer id, the revision names one
-- skin's content for good, so a read can reuse evaluators prepared from that
-- content by earlier reads (api/skin_cache.c). Rows from before this version
-- keep revision 0: any rewrite stamps a version of 1 or more.
ALTER TABLE skins ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
