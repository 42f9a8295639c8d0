package io.outpost.auth.service;

import java.util.ArrayList;
import java.util.List;
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

    private static void text(List<ErrorDetail> out, List<Object> loc, String value, int max, Pattern alphabet) {
        if (Constraints.text(out, loc, value, 1, max) && !alphabet.matcher(value).matches()) {
            out.add(ErrorDetail.valueError(loc, "should match pattern '" + alphabet.pattern() + "'"));
        }
    }

    /** Refuses a bootstrap client the admin surface would refuse too. */
    public void checkBootstrap(String id, String secret, List<String> permissions) {
        List<ErrorDetail> faults = new ArrayList<>();
        clientId(faults, ErrorDetail.loc("outpost.auth.bootstrap-clients"), id);
        permissions(faults, ErrorDetail.loc("outpost.auth.bootstrap-clients", id, "permissions"), permissions);
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
