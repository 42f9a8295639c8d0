package io.outpost.load.soak;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the soak's producers had acknowledged and what its clients received, per player: every notification of a
 * player is numbered 0, 1, 2, … in the order it was sent, so a number received twice is a doubled delivery, one
 * received after a higher one a broken order, and one acknowledged but never received a loss.
 */
final class SoakLedger {

    private final int[] sent;
    private final BitSet[] acked;
    private final BitSet[] received;
    private final int[] highest;
    final AtomicLong ackedTotal = new AtomicLong();
    final AtomicLong sendFailures = new AtomicLong();
    final AtomicLong receivedTotal = new AtomicLong();
    final AtomicLong doubled = new AtomicLong();
    final AtomicLong reordered = new AtomicLong();

    SoakLedger(int players) {
        sent = new int[players];
        acked = new BitSet[players];
        received = new BitSet[players];
        highest = new int[players];
        for (int p = 0; p < players; p++) {
            acked[p] = new BitSet();
            received[p] = new BitSet();
            highest[p] = -1;
        }
    }

    /** The number of the player's next notification (the producer's thread only). */
    int next(int player) {
        return sent[player]++;
    }

    void acked(int player, int number) {
        synchronized (acked[player]) {
            acked[player].set(number);
        }
        ackedTotal.incrementAndGet();
    }

    void received(int player, int number) {
        receivedTotal.incrementAndGet();
        synchronized (received[player]) {
            if (received[player].get(number)) {
                doubled.incrementAndGet();
                return;
            }
            received[player].set(number);
            if (number < highest[player]) {
                reordered.incrementAndGet();
            }
            highest[player] = Math.max(highest[player], number);
        }
    }

    /** Acknowledged notifications no client has received (yet). */
    long lost() {
        long lost = 0;
        for (int p = 0; p < acked.length; p++) {
            BitSet missing;
            synchronized (acked[p]) {
                missing = (BitSet) acked[p].clone();
            }
            synchronized (received[p]) {
                missing.andNot(received[p]);
            }
            lost += missing.cardinality();
        }
        return lost;
    }

    /** A few players with what they miss, for the report. */
    List<String> missingExamples(int max) {
        List<String> examples = new ArrayList<>();
        for (int p = 0; p < acked.length && examples.size() < max; p++) {
            BitSet missing;
            synchronized (acked[p]) {
                missing = (BitSet) acked[p].clone();
            }
            synchronized (received[p]) {
                missing.andNot(received[p]);
            }
            if (!missing.isEmpty()) {
                examples.add("player " + p + " misses " + missing);
            }
        }
        return examples;
    }
}
