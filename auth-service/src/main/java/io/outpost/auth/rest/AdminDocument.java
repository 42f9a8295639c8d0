package io.outpost.auth.rest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import io.vertx.ext.web.RoutingContext;

/**
 * The admin API's OpenAPI document ({@code openapi/admin.yaml}), answered as {@code /q/openapi} on the admin port
 * only: the public port's {@code /q/openapi} is SmallRye's, of {@code META-INF/openapi.yaml}, and lists no admin
 * route. As SmallRye answers: YAML, or JSON for {@code ?format=json} or an {@code Accept} naming JSON.
 */
final class AdminDocument {

    static final String PATH = "/q/openapi";
    private static final String RESOURCE = "openapi/admin.yaml";

    private final String yaml;
    private final String json;

    private AdminDocument(String yaml, String json) {
        this.yaml = yaml;
        this.json = json;
    }

    static AdminDocument load() {
        try (InputStream in = AdminDocument.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing");
            }
            String yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new AdminDocument(yaml, new ObjectMapper().writeValueAsString(new YAMLMapper().readTree(yaml)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void answer(RoutingContext context) {
        String accept = context.request().getHeader("Accept");
        boolean asJson = "json".equalsIgnoreCase(context.request().getParam("format"))
                || accept != null && accept.contains("json");
        context.response().putHeader("Content-Type", asJson ? "application/json;charset=UTF-8"
                : "application/yaml;charset=UTF-8").end(asJson ? json : yaml);
    }
}
