-- Every append maintains each index of history.config_transaction, and none reads by id alone (listings read
-- (sandbox_id, resource_type, …, id)). transaction_id, unique and the key of idempotence, becomes the primary
-- key; id stays the identity sequence of the append order, unique by construction (GENERATED ALWAYS).
ALTER TABLE history.config_transaction
    DROP CONSTRAINT config_transaction_pkey,
    DROP CONSTRAINT config_transaction_transaction_id_key,
    ADD CONSTRAINT config_transaction_pkey PRIMARY KEY (transaction_id);
