-- DESIGN §4a: stored input is never expanded on the way out. jsonb keeps numbers as numeric and writes them
-- without an exponent, so a snapshot of 27 KB holding 1e131071 three thousand times became 390 MB on every read.
-- The ingest now refuses a number written in more than 1,000 characters and a snapshot written in more than
-- 2 MiB (JsonbText); version_bytes holds the length of version::text of each row, which a page adds up to stop
-- at its byte bound (HistoryReader) without writing out the versions it does not send.
--
-- Rows stored before this migration were measured here by the same rule, without writing out a long number:
-- a row breaking it keeps version_bytes NULL and is listed without its `version` (docs/history.md, "Limits").
ALTER TABLE history.config_transaction ADD COLUMN version_bytes integer;

-- The bytes of version::text, or NULL when a number in it is written in more than 1,000 characters or the text
-- would take more than 2 MiB. A number is written out only when it is known to be short (below 1e1000 in
-- magnitude, fewer than 1,000 digits after the point), and the whole text only when its numbers are.
CREATE FUNCTION history.version_bytes(version jsonb) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    longest bigint;
    chars bigint;
    bytes bigint;
BEGIN
    SELECT coalesce(max(n.chars), 0), coalesce(sum(n.chars), 0) INTO longest, chars
    FROM jsonb_path_query(version, 'strict $.** ? (@.type() == "number")') AS x(number),
         LATERAL (SELECT CASE WHEN abs(number::numeric) >= 1e1000 OR scale(number::numeric) >= 1000 THEN 1001
                              ELSE length(number::text) END AS chars) AS n;
    IF longest > 1000 OR chars > 2097152 THEN
        RETURN NULL;
    END IF;
    bytes := octet_length(version::text);
    RETURN CASE WHEN bytes > 2097152 THEN NULL ELSE bytes END;
END
$$;

-- the table refuses updates to keep history append-only; this one writes a derived column only
ALTER TABLE history.config_transaction DISABLE TRIGGER config_transaction_append_only;
UPDATE history.config_transaction SET version_bytes = history.version_bytes(version);
ALTER TABLE history.config_transaction ENABLE TRIGGER config_transaction_append_only;

-- The store sends version_bytes with every row; a replica of an earlier release does not, and the database
-- measures its rows instead (the WHEN clause keeps the function call off every other insert).
CREATE FUNCTION history.measure_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.version_bytes := history.version_bytes(NEW.version);
    RETURN NEW;
END
$$;
CREATE TRIGGER config_transaction_measure_version BEFORE INSERT ON history.config_transaction
    FOR EACH ROW WHEN (NEW.version_bytes IS NULL) EXECUTE FUNCTION history.measure_version();
