package io.outpost.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.ObjectName;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.outpost.notification.service.PollRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

/**
 * What a held poll keeps, measured: the live heap of the JVM (a class histogram, which collects first) with
 * {@value #POLLS} polls held, each with a 7,000-character {@code exclude_before}, against the same polls with none.
 * The difference per poll is the request line, which the server's request keeps until the answer twice (Vert.x's
 * request and Quarkus's forwarded-address wrapper, its absolute URI): ≈ 15 KB; the decoded value is not kept beside
 * them (it was: ≈ 22 KB). The polls are held over raw sockets, so the client keeps no copy of what it sent
 * (docs/notifications.md, "Memory per held poll").
 */
@QuarkusTest
class HeldPollHeapTest {

    private static final Logger LOG = Logger.getLogger(HeldPollHeapTest.class);
    private static final int POLLS = 200;
    private static final int LONG = 7_000;

    @Inject
    PollRegistry registry;

    @Test
    void aHeldPollKeepsItsRequestLineButNotItsDecodedCursor() throws Exception {
        long none = liveBytes();
        long shortPolls = heldBytes("");
        long longPolls = heldBytes("&exclude_before=" + "x".repeat(LONG));
        long perShort = (shortPolls - none) / POLLS;
        long perLong = (longPolls - none) / POLLS;
        LOG.infof("live heap per held poll: %d bytes with no exclude_before, %d with %d characters of it",
                perShort, perLong, LONG);
        assertThat(perShort).as("bytes per held poll, a short query").isLessThan(32 * 1024);
        // the request line's two copies (7,000 bytes of Latin-1 text each) at most, not the decoded value beside them
        assertThat(perLong - perShort).as("bytes per held poll that the long exclude_before adds")
                .isLessThan(2 * LONG + 4_000); // ≈ 15,100 measured; ≈ 22,000 when the decoded value was kept too
    }

    /** Live bytes with {@value #POLLS} polls held whose query ends with {@code extra}; the polls are closed after. */
    private long heldBytes(String extra) throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < POLLS; i++) {
                Socket socket = new Socket("localhost", RestAssured.port);
                sockets.add(socket);
                String request = "GET " + Fixture.LP + "?deadline=300" + extra + " HTTP/1.1\r\nHost: localhost\r\n"
                        + "Authorization: Bearer " + Fixture.reader(UUID.randomUUID()) + "\r\n\r\n";
                socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> registry.held() == POLLS);
            return liveBytes();
        } finally {
            for (Socket socket : sockets) {
                close(socket);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> registry.held() == 0);
        }
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closed already
        }
    }

    /** The live heap in bytes: the total of a class histogram (GC.class_histogram collects before it counts). */
    private static long liveBytes() throws Exception {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] { new String[0] }, new String[] { String[].class.getName() });
        Matcher total = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)\\s*$").matcher(histogram);
        assertThat(total.find()).as("the histogram's total").isTrue();
        return Long.parseLong(total.group(1));
    }
}
