package io.outpost.e2e;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.assertj.core.api.SoftAssertions;
import org.awaitility.core.ConditionTimeoutException;

import io.outpost.e2e.Client.Answer;

/**
 * What the fault tests ask of the stack while something is broken: requests sent side by side, round after
 * round, each answer checked for its status, its {@code error_code} and how long it took. Failures are
 * collected ({@link SoftAssertions}) so one run shows every expectation that does not hold.
 */
final class Probe {

    /** What one request must answer: a status, within a time, and (unless null) a body field's text. */
    record Expectation(String what, Supplier<CompletableFuture<Answer>> request, int status, String field,
            String value, Duration within) {
    }

    private Probe() {
    }

    /** An error answer: {@code status} with {@code error_code} (unless null). */
    static Expectation expect(String what, Supplier<CompletableFuture<Answer>> request, int status, String errorCode,
            Duration within) {
        return new Expectation(what, request, status, errorCode == null ? null : "error_code", errorCode, within);
    }

    /** A health check's answer: 200 with {@code "status":"UP"} or 503 with {@code "status":"DOWN"}. */
    static Expectation health(String what, Supplier<CompletableFuture<Answer>> request, boolean up, Duration within) {
        return new Expectation(what, request, up ? 200 : 503, "status", up ? "UP" : "DOWN", within);
    }

    /**
     * Sends every request of {@code round} side by side and checks the answers, again and again until
     * {@code atLeast} has passed since {@code since} (and at least twice); returns the number of rounds.
     */
    static int repeat(SoftAssertions soft, long since, Duration atLeast, List<Expectation> round) {
        int rounds = 0;
        do {
            List<CompletableFuture<Answer>> answers = round.stream().map(e -> e.request().get()).toList();
            for (int i = 0; i < round.size(); i++) {
                check(soft, "round " + (rounds + 1) + ": ", round.get(i), answers.get(i).join());
            }
            rounds++;
        } while (rounds < 2 || System.nanoTime() - since < atLeast.toNanos());
        return rounds;
    }

    /** A check that may wait (Awaitility): its failure, timeouts included, is collected rather than thrown. */
    interface Check {
        void run() throws Exception;
    }

    /** Runs {@code check}, collecting its failure (shortened: a failure must not print a 1 MiB value). */
    static void softly(SoftAssertions soft, Check check) {
        try {
            check.run();
        } catch (AssertionError | ConditionTimeoutException e) {
            String message = String.valueOf(e.getMessage());
            soft.fail(message.length() > 20_000 ? message.substring(0, 20_000) + "… (shortened)" : message);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static void check(SoftAssertions soft, String prefix, Expectation expected, Answer answer) {
        soft.assertThat(answer.status()).as("%s%s: status of %s", prefix, expected.what(), answer)
                .isEqualTo(expected.status());
        if (expected.field() != null) {
            soft.assertThat(answer.body().path(expected.field()).asText(null))
                    .as("%s%s: %s of %s", prefix, expected.what(), expected.field(), answer)
                    .isEqualTo(expected.value());
        }
        soft.assertThat(answer.took()).as("%s%s: time to answer", prefix, expected.what())
                .isLessThanOrEqualTo(expected.within());
    }
}
