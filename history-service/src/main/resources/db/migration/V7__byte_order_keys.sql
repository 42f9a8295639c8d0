-- The text columns that lead or fill the store's B-tree keys compare by bytes (COLLATE "C") instead of the
-- database's locale. Every append inserts five index entries per transaction, and under a libc locale (C.UTF-8,
-- en_US.UTF-8) each comparison on the way down those trees called strcoll: the primary key (transaction_id),
-- the second column of every listing index (resource_type) and the name digest, md5(name_folded), which takes
-- its column's collation. Nothing reads these columns in locale order: pages are ordered by id, names are
-- matched by equality of their digests and by LIKE, and equality is byte equality under either collation.
-- Measured: PostgreSQL alone appending 2,000-row batches, +8-26 % (docs/benchmarks.md, "Issue 10, eighth pass").
-- No row is rewritten; PostgreSQL rebuilds the indexes on these columns, holding the tables' locks meanwhile.
ALTER TABLE history.config_transaction
    ALTER COLUMN transaction_id TYPE text COLLATE "C",
    ALTER COLUMN resource_type TYPE text COLLATE "C",
    ALTER COLUMN name_folded TYPE text COLLATE "C";
ALTER TABLE history.name_total
    ALTER COLUMN resource_type TYPE text COLLATE "C",
    ALTER COLUMN name_folded TYPE text COLLATE "C";
ALTER TABLE history.listing_total
    ALTER COLUMN resource_type TYPE text COLLATE "C";
