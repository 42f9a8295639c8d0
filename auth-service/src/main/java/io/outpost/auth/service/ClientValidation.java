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

    /** Faults of a client id at {@code loc}. */
    public void clientId(List<ErrorDetail> out, List<Object> loc, String id) {
        int before = out.size();
        Constraints.length(out, loc, id, 1, CLIENT_ID_MAX);
        if (out.size() == before && !CLIENT_ID.matcher(id).matches()) {
            out.add(ErrorDetail.jsonInvalid(loc, "String should match pattern '" + CLIENT_ID.pattern() + "'"));
        }
    }

    /** Faults of a permission list at {@code loc} (each entry located by its index). */
    public void permissions(List<ErrorDetail> out, List<Object> loc, List<String> permissions) {
        if (permissions.size() > PERMISSIONS_MAX) {
            out.add(ErrorDetail.jsonInvalid(loc, "List should have at most " + PERMISSIONS_MAX + " items"));
            return;
        }
        for (int i = 0; i < permissions.size(); i++) {
            List<Object> at = ErrorDetail.loc(loc, i);
            String permission = permissions.get(i);
            if (!Constraints.required(out, at, permission)) {
                continue;
            }
            int before = out.size();
            Constraints.length(out, at, permission, 1, PERMISSION_MAX);
            if (out.size() == before && !PERMISSION.matcher(permission).matches()) {
                out.add(ErrorDetail.jsonInvalid(at, "String should match pattern '" + PERMISSION.pattern() + "'"));
            }
        }
    }

    /** Refuses a bootstrap client the admin surface would refuse too. */
    public void checkBootstrap(String id, String secret, List<String> permissions) {
        List<ErrorDetail> faults = new ArrayList<>();
        clientId(faults, ErrorDetail.loc("outpost.auth.bootstrap-clients"), id);
        permissions(faults, ErrorDetail.loc("outpost.auth.bootstrap-clients", id, "permissions"), permissions);
        if (secret.isEmpty()) {
            faults.add(ErrorDetail.missing(ErrorDetail.loc("outpost.auth.bootstrap-clients", id, "secret")));
        }
        if (!faults.isEmpty()) {
            throw new IllegalStateException("bootstrap client " + id + " is invalid: "
                    + faults.stream().map(ErrorDetail::describe).toList());
        }
    }
}
