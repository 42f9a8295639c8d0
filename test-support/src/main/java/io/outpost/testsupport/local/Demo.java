package io.outpost.testsupport.local;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Properties;
import java.util.UUID;

/**
 * The local stack's demo identities, made once and kept in {@code .outpost-local/demo.properties} (owner-only)
 * so a second run reuses them: a game client bound to a demo player with {@code notification:player:self:*} (its
 * own notifications, read and write: never another player's, and no sandbox permission: a game install never
 * reads configuration history), a tools client with {@code sandbox:config:view} bound to the demo sandbox alone
 * (the shape of a game studio's tool: docs/auth.md, "Sandbox binding"), an admin client with
 * {@code auth:clients:admin}, and a demo sandbox. They reach
 * auth-service as bootstrap clients through an extra configuration file ({@code QUARKUS_CONFIG_LOCATIONS}),
 * so no secret appears on a command line.
 */
public record Demo(String clientId, String clientSecret, UUID player, String adminId, String adminSecret,
        UUID sandbox, String toolsId, String toolsSecret) {

    static Demo loadOrCreate(Path data) throws IOException {
        Path file = data.resolve("demo.properties");
        Properties props = new Properties();
        if (Files.exists(file)) {
            try (Reader reader = Files.newBufferedReader(file)) {
                props.load(reader);
            }
        } else {
            props.setProperty("client.id", "demo-game");
            props.setProperty("client.secret", secret());
            props.setProperty("player", UUID.randomUUID().toString());
            props.setProperty("admin.id", "demo-admin");
            props.setProperty("admin.secret", secret());
            props.setProperty("sandbox", UUID.randomUUID().toString());
        }
        // identities made before the tools client gain it; the others stay as they are
        if (props.getProperty("tools.id") == null) {
            props.setProperty("tools.id", "demo-tools");
            props.setProperty("tools.secret", secret());
            writeOwnerOnly(file, props, "Outpost local demo identities (local use only)");
        }
        return new Demo(props.getProperty("client.id"), props.getProperty("client.secret"),
                UUID.fromString(props.getProperty("player")), props.getProperty("admin.id"),
                props.getProperty("admin.secret"), UUID.fromString(props.getProperty("sandbox")),
                props.getProperty("tools.id"), props.getProperty("tools.secret"));
    }

    /** Writes auth-service's bootstrap-client configuration and returns its path. */
    Path writeAuthConfig(Path data) throws IOException {
        Properties props = new Properties();
        String game = "outpost.auth.bootstrap-clients." + clientId + ".";
        props.setProperty(game + "secret", clientSecret);
        props.setProperty(game + "permissions", "notification:player:self:*");
        props.setProperty(game + "player-uuid", player.toString());
        String tools = "outpost.auth.bootstrap-clients." + toolsId + ".";
        props.setProperty(tools + "secret", toolsSecret);
        props.setProperty(tools + "permissions", "sandbox:config:view");
        props.setProperty(tools + "sandbox-ids", sandbox.toString());
        String admin = "outpost.auth.bootstrap-clients." + adminId + ".";
        props.setProperty(admin + "secret", adminSecret);
        props.setProperty(admin + "permissions", "auth:clients:admin");
        Path file = data.resolve("auth-demo-clients.properties");
        writeOwnerOnly(file, props, "Bootstrap clients for the local auth-service (local use only)");
        return file;
    }

    private static void writeOwnerOnly(Path file, Properties props, String comment) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (Writer writer = Files.newBufferedWriter(file)) {
            props.store(writer, comment);
        }
    }

    private static String secret() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
