-- rigd schema, version 15: what history compaction looks up without reading
-- the whole history (docs/history.md, "Retention and compaction"). It needs,
-- per layer with stored keys or chunks, the oldest version a retained row of
-- that layer was written at (its minrev); keyed by valid_to first,
-- layer_history and binding_history answered that only by reading every
-- history row of the shot, so each compaction step cost the whole retained
-- history (a backlog of 40,000 versions: 0.65 s a step).
--
-- layer_history, many rows a batch, is indexed by valid_from: a batch's
-- archived rows mostly start where the last batch left them, so they land on
-- the index's last page, not on one page per layer. The retained rows with
-- valid_from <= the floor are the ones valid at the floor, one per layer
-- alive then: a short range.
CREATE INDEX layer_history_by_from ON layer_history(shot_seq, valid_from, layer_id);
-- binding_history, one row per binding edit, is indexed by layer: one seek
-- per layer. It also finds a binding_history row by its layer and revision (a
-- generic binding read at a past version) without a scan.
CREATE INDEX binding_history_by_layer ON binding_history(shot_seq, layer_id, valid_from);
