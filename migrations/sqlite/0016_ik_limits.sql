-- rigd schema, version 16: angle limits on IK chains (issue 27 item 2). One
-- "clockwise anticlockwise" pair of degrees per chain layer, space-separated
-- (17 significant digits), NULL for a chain without limits; a past set keeps
-- its limits in constraint_history.
ALTER TABLE constraints ADD COLUMN limits TEXT;
ALTER TABLE constraint_history ADD COLUMN limits TEXT;
