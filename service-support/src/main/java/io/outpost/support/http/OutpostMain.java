package io.outpost.support.http;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

/** The entry point of every service: Quarkus's own, after one switch of its HTTP layer. */
@QuarkusMain
public final class OutpostMain {

    private OutpostMain() {
    }

    public static void main(String... args) {
        // Quarkus answers a URI java.net.URI cannot parse with a bodiless 400 before any route runs, unless this
        // is set when its HTTP layer loads; RequestUriCheck then refuses the same URIs with DESIGN §5's 422.
        System.setProperty("vertx.disableURIValidation", "true");
        Quarkus.run(args);
    }
}
