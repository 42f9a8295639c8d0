-- A secret kept through a rotation's grace is checked in the same KDF run as the current one, which needs both
-- hashes to share their salt and iterations ($pbkdf2-sha512$i=<iterations>$<salt>$<hash>; docs/auth.md, "Client
-- registry"). A previous secret hashed with a salt of its own cannot be checked that way: its grace ends here.
UPDATE auth.client
   SET previous_secret_hash = NULL, previous_secret_expires_at = NULL
 WHERE previous_secret_hash IS NOT NULL
   AND (split_part(previous_secret_hash, '$', 3) <> split_part(secret_hash, '$', 3)
        OR split_part(previous_secret_hash, '$', 4) <> split_part(secret_hash, '$', 4));
