-- A B-tree entry holds at most 2,704 bytes: a role whose folded name is longer (1,000 CJK characters are 3,000
-- bytes) could not be stored, since both the page index and the dictionary's key held the name itself. Both now
-- hold a fixed-size digest of it, md5(name_folded) (IMMUTABLE, so usable in an index and as the ON CONFLICT
-- target of the dictionary's upsert). Readers compare the digest through the index, then the name itself, so
-- two names sharing a digest never mix in a page. See docs/history.md, "The store".

-- the dictionary: one row per (sandbox, type, digest of the folded name)
ALTER TABLE history.name_total DROP CONSTRAINT name_total_pkey;
CREATE UNIQUE INDEX name_total_key ON history.name_total (sandbox_id, resource_type, md5(name_folded));
-- profile lists have no name filter: their names are no longer folded nor counted
DELETE FROM history.name_total WHERE resource_type = 'match-making-profile-list';

-- pages of a few matching names: one index range per name (per digest), merged by id
DROP INDEX history.config_transaction_name_exact;
CREATE INDEX config_transaction_name_digest ON history.config_transaction (sandbox_id, resource_type, md5(name_folded), id)
    WHERE name_folded IS NOT NULL;
