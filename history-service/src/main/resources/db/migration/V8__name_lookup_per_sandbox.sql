-- The name filter first looks up the matching names of one sandbox in the dictionary (HistoryReader.NAMES). The
-- trigram index of V3 held the names of every sandbox, and name_total_key began with the sandbox, so PostgreSQL
-- read the sandbox's whole range of that key (a big sandbox: thousands of entries per request), intersected with
-- the trigram index or testing every name against the pattern: 4-8 ms per request on 1,000,000 rows
-- (docs/benchmarks.md). Now one GIN index over the sandbox and the name's trigrams answers the look-up alone, and
-- the key leads with the name's digest, so no B-tree range offers the planner a sandbox's names one by one.
-- resource_type stays out of the GIN index: only roles are in the dictionary (V6); its entry would list every row.
-- New names wait in the index's pending list, which every look-up reads whole: PostgreSQL's default lets it grow
-- to 4 MB (512 pages per look-up) before the next insert merges it; 64 kB, the least, bounds that at 8.
CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA history;
CREATE INDEX name_total_sandbox_trigram ON history.name_total
    USING gin (sandbox_id, name_folded history.gin_trgm_ops) WITH (gin_pending_list_limit = 64);
DROP INDEX history.name_total_trigram;

-- still the append's ON CONFLICT target: PostgreSQL matches it by its set of columns, in any order, so replicas
-- of the previous release keep upserting into it
DROP INDEX history.name_total_key;
CREATE UNIQUE INDEX name_total_key ON history.name_total (md5(name_folded), sandbox_id, resource_type);
