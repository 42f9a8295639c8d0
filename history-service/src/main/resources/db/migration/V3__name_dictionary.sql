-- The name filter (case-insensitive substring of a role's name) must neither count nor scan a big sandbox row
-- by row: "admin" may match a quarter of a million versions. Distinct names are few (a sandbox has at most
-- thousands of roles), so the filter is first resolved against this dictionary of names with their number of
-- transactions, kept in the same database transaction as the rows (TransactionStore.append).
CREATE TABLE history.name_total (
    sandbox_id    uuid   NOT NULL,
    resource_type text   NOT NULL,
    name_lower    text   NOT NULL,
    total         bigint NOT NULL,
    PRIMARY KEY (sandbox_id, resource_type, name_lower)
);
CREATE INDEX name_total_trigram ON history.name_total USING gin (name_lower history.gin_trgm_ops);

INSERT INTO history.name_total (sandbox_id, resource_type, name_lower, total)
SELECT sandbox_id, resource_type, name_lower, count(*) FROM history.config_transaction
WHERE name_lower IS NOT NULL GROUP BY 1, 2, 3;

-- pages of a few matching names: one index range per name, merged by id
CREATE INDEX config_transaction_name_exact ON history.config_transaction (sandbox_id, resource_type, name_lower, id)
    WHERE name_lower IS NOT NULL;

-- superseded by the dictionary; a trigram GIN entry per stored row was the costliest part of an append
DROP INDEX history.config_transaction_name;
