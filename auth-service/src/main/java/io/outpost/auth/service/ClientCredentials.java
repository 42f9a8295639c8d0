package io.outpost.auth.service;

/** A client id and the secret presented with it. {@link #toString()} never shows the secret. */
public record ClientCredentials(String clientId, String secret) {

    @Override
    public String toString() {
        return "ClientCredentials[" + clientId + "]";
    }
}
