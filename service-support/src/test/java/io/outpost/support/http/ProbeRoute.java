package io.outpost.support.http;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.ext.web.Router;

/** A Vert.x route below Quarkus REST answering through {@link RouteAnswers}, beside {@link ProbeResource}'s twins. */
@Singleton
public class ProbeRoute {

    private final RouteAnswers answers;

    public ProbeRoute(RouteAnswers answers) {
        this.answers = answers;
    }

    void install(@Observes Router router) {
        router.route("/probe-route/failure").order(RouteConstants.ROUTE_ORDER_BEFORE_DEFAULT).handler(routing -> answers
                .failed(routing.response(), new IllegalStateException("secret detail of an unexpected failure")));
        router.route("/probe-route/not-allowed").order(RouteConstants.ROUTE_ORDER_BEFORE_DEFAULT)
                .handler(routing -> answers.status(routing.response(), 405, "Method Not Allowed"));
    }
}
