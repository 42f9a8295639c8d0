package io.outpost.auth.service;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

import jakarta.inject.Singleton;

import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;

/**
 * The rules of a client record, for the admin surface (422 details) and for bootstrap configuration (a refused
 * start). A client id never holds {@code ':'}, which would split the Basic credentials.
 */
@Singleton
public class ClientValidation {

    public static final int CLIENT_ID_MAX = 64;
    public static final int PERMISSION_MAX = 128;
    public static final int PERMISSIONS_MAX = 100;
    /** Most sandboxes one client may be bound to: a game's environments, not a platform's every sandbox. */
    public static final int SANDBOXES_MAX = 100;
    private static final Pattern CLIENT_ID = Pattern.compile("[A-Za-z0-9._~-]+");
    private static final Pattern PERMISSION = Pattern.compile("[A-Za-z0-9._:*-]+");

    /** Whether {@code id} is one the registry can hold (anything else is an unknown client, PostgreSQL unasked). */
    public boolean isClientId(String id) {
        return id != null && !id.isEmpty() && id.length() <= CLIENT_ID_MAX && CLIENT_ID.matcher(id).matches();
    }

    /**
     * Faults of a client id at {@code loc}: {@code string_pattern_mismatch} for text the store cannot keep, then its
     * length, then {@code value_error} for a character outside the id's alphabet (at most one fault).
     */
    public void clientId(List<ErrorDetail> out, List<Object> loc, String id) {
        text(out, loc, id, CLIENT_ID_MAX, CLIENT_ID);
    }

    /** Faults of a permission list at {@code loc}: more than {@value #PERMISSIONS_MAX} entries is {@code too_long}. */
    public void permissions(List<ErrorDetail> out, List<Object> loc, List<String> permissions) {
        if (permissions.size() > PERMISSIONS_MAX) {
            out.add(ErrorDetail.tooLong(loc, PERMISSIONS_MAX));
            return;
        }
        for (int i = 0; i < permissions.size(); i++) {
            permission(out, ErrorDetail.loc(loc, i), permissions.get(i));
        }
    }

    /** Faults of one permission at {@code loc}, as {@link #clientId} checks an id. */
    public void permission(List<ErrorDetail> out, List<Object> loc, String permission) {
        if (Constraints.required(out, loc, permission)) {
            text(out, loc, permission, PERMISSION_MAX, PERMISSION);
        }
    }

    /**
     * Faults of a sandbox binding at {@code loc}: empty is {@code too_short} (no binding is null, never an empty
     * list, which would read as "bound to nothing" or "bound to everything" depending on the reader), more than
     * {@value #SANDBOXES_MAX} {@code too_long}; each entry text the store can keep ({@code string_pattern_mismatch}),
     * a canonical uuid ({@code uuid_parsing}) and not the same uuid as an earlier entry ({@code value_error}).
     * Answers the canonical lower-case ids when there is no fault.
     */
    public List<String> sandboxIds(List<ErrorDetail> out, List<Object> loc, List<String> sandboxIds) {
        if (sandboxIds.isEmpty()) {
            out.add(ErrorDetail.tooShort(loc, 1));
            return null;
        }
        if (sandboxIds.size() > SANDBOXES_MAX) {
            out.add(ErrorDetail.tooLong(loc, SANDBOXES_MAX));
            return null;
        }
        int before = out.size();
        Set<UUID> seen = new LinkedHashSet<>();
        for (int i = 0; i < sandboxIds.size(); i++) {
            List<Object> at = ErrorDetail.loc(loc, i);
            String id = sandboxIds.get(i);
            if (Constraints.required(out, at, id) && Constraints.text(out, at, id)) {
                UUID sandbox = Constraints.uuid(out, at, id);
                if (sandbox != null && !seen.add(sandbox)) {
                    out.add(ErrorDetail.valueError(at, "should not repeat sandbox " + sandbox));
                }
            }
        }
        return out.size() > before ? null : seen.stream().map(UUID::toString).toList();
    }

    private static void text(List<ErrorDetail> out, List<Object> loc, String value, int max, Pattern alphabet) {
        if (Constraints.text(out, loc, value, 1, max) && !alphabet.matcher(value).matches()) {
            out.add(ErrorDetail.valueError(loc, "should match pattern '" + alphabet.pattern() + "'"));
        }
    }

    /** Refuses a bootstrap client the admin surface would refuse too ({@code sandboxIds} null: not bound). */
    public void checkBootstrap(String id, String secret, List<String> permissions, List<String> sandboxIds) {
        List<ErrorDetail> faults = new ArrayList<>();
        clientId(faults, ErrorDetail.loc("outpost.auth.bootstrap-clients"), id);
        permissions(faults, ErrorDetail.loc("outpost.auth.bootstrap-clients", id, "permissions"), permissions);
        if (sandboxIds != null) {
            sandboxIds(faults, ErrorDetail.loc("outpost.auth.bootstrap-clients", id, "sandbox-ids"), sandboxIds);
        }
        if (secret.isEmpty()) {
            faults.add(ErrorDetail.missing(ErrorDetail.loc("outpost.auth.bootstrap-clients", id, "secret")));
        } else if (!SecretHasher.acceptable(secret)) {
            faults.add(ErrorDetail.stringPatternMismatch(ErrorDetail.loc("outpost.auth.bootstrap-clients", id, "secret")));
        }
        if (!faults.isEmpty()) {
            throw new IllegalStateException("bootstrap client " + id + " is invalid: "
                    + faults.stream().map(ErrorDetail::describe).toList());
        }
    }
}
