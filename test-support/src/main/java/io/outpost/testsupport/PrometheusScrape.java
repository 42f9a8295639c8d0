package io.outpost.testsupport;

import static io.restassured.RestAssured.given;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the service under test's {@code /q/metrics} as Prometheus scrapes it. */
public final class PrometheusScrape {

    private PrometheusScrape() {
    }

    /** The value of an untagged gauge; fails when the service does not publish it. */
    public static double gauge(String name) {
        return value(name, "(\\{[^}]*})?");
    }

    /** The value of the series of gauge {@code name} whose tag {@code tag} is {@code value}. */
    public static double gauge(String name, String tag, String value) {
        return value(name, "\\{[^}]*" + Pattern.quote(tag + "=\"" + value + "\"") + "[^}]*}");
    }

    private static double value(String name, String tags) {
        String scraped = given().get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher value = Pattern.compile("(?m)^" + Pattern.quote(name) + tags + " (\\S+)$").matcher(scraped);
        if (!value.find()) {
            throw new AssertionError(name + " is not published on /q/metrics");
        }
        return Double.parseDouble(value.group(value.groupCount()));
    }
}
