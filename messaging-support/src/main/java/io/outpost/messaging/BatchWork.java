package io.outpost.messaging;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

import io.outpost.messaging.Refusals.Refusal;
import io.outpost.support.store.StoreFault;
import io.outpost.support.store.StoreUnavailableException;
import io.quarkus.vertx.VertxContextSupport;
import io.vertx.pgclient.PgException;

/**
 * One polled batch on its way to the store. {@link #prepare} (on the consumer's thread) parses and validates
 * every record and sends the dead letters of the refused ones at once; {@link #store} (on the store's thread)
 * stores the valid ones — splitting out what the store refuses for its data, and dead-lettering each with the
 * store's reason — then waits until every dead letter is acknowledged. Only then may the batch's
 * {@link #offsets()} be committed.
 */
final class BatchWork<E> {

    private static final Logger LOG = Logger.getLogger(BatchWork.class);
    private static final long LETTER_TIMEOUT_MS = 30_000;

    /** What the batch's records need from the ingest around them. */
    record Context<E>(RecordParser<E> parser, BatchStore<E> store, Duration storeTimeout, DeadLetters deadLetters,
            Refusals refusals, IngestMetrics metrics) {
    }

    private final Context<E> context;
    private final ConsumerRecords<byte[], byte[]> records;
    private final List<Consumed<E>> valid;
    private final Map<Consumed<E>, ConsumerRecord<byte[], byte[]>> sources = new IdentityHashMap<>();
    private final List<Letter> letters = new ArrayList<>();
    private int deadLettered;
    /** Its records' keys, once asked for (the consumer's thread only); a record without a key counts as every key. */
    private Set<ByteBuffer> keys;
    private boolean keyless;

    private BatchWork(Context<E> context, ConsumerRecords<byte[], byte[]> records) {
        this.context = context;
        this.records = records;
        this.valid = new ArrayList<>(records.count());
    }

    /** Parses and validates every record; the refused ones' dead letters are on their way when it returns. */
    static <E> BatchWork<E> prepare(Context<E> context, ConsumerRecords<byte[], byte[]> records) {
        BatchWork<E> work = new BatchWork<>(context, records);
        Refusals refusals = context.refusals();
        long now = System.currentTimeMillis();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            context.metrics().consumed(record, now);
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            Refusal refusal = refusals.refusal(partition, record.offset());
            if (refusal == null) {
                RecordParser.Parsed<E> parsed = context.parser().parse(record);
                if (parsed.consumed() != null) {
                    work.valid.add(parsed.consumed());
                    work.sources.put(parsed.consumed(), record);
                    continue;
                }
                refusal = parsed.refusal();
                refusals.refuse(partition, record.offset(), refusal);
            }
            if (!refusals.lettered(partition, record.offset())) {
                work.send(record, refusal);
            }
        }
        return work;
    }

    ConsumerRecords<byte[], byte[]> records() {
        return records;
    }

    /**
     * Stores the valid records and waits for every dead letter; answers how many records were stored. Throws
     * when the batch must be retried (a failure that heals, or one that is not about the data).
     */
    int store() throws Exception {
        long start = System.nanoTime();
        int count = storeIsolating(valid);
        awaitLetters();
        context.metrics().batchStored(valid, System.nanoTime() - start, System.currentTimeMillis());
        return count;
    }

    /** Dead letters this batch had acknowledged (after {@link #store}). */
    int deadLettered() {
        return deadLettered;
    }

    /** The offsets to commit once the batch is done: one past its last record, per partition. */
    Map<TopicPartition, OffsetAndMetadata> offsets() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> inPartition = records.records(partition);
            offsets.put(partition, new OffsetAndMetadata(inPartition.get(inPartition.size() - 1).offset() + 1));
        }
        return offsets;
    }

    /** Whether this batch and {@code other} hold records of the same key (a record without a key: any key). */
    boolean sharesKeyWith(BatchWork<E> other) {
        Set<ByteBuffer> mine = keys();
        Set<ByteBuffer> theirs = other.keys();
        if (mine == null || theirs == null) {
            return true;
        }
        Set<ByteBuffer> smaller = mine.size() <= theirs.size() ? mine : theirs;
        Set<ByteBuffer> larger = smaller == mine ? theirs : mine;
        for (ByteBuffer key : smaller) {
            if (larger.contains(key)) {
                return true;
            }
        }
        return false;
    }

    /** Its records' keys; null when one has none. */
    private Set<ByteBuffer> keys() {
        if (keys == null && !keyless) {
            Set<ByteBuffer> found = new HashSet<>(records.count() * 2);
            for (ConsumerRecord<byte[], byte[]> record : records) {
                if (record.key() == null) {
                    keyless = true;
                    return null;
                }
                found.add(ByteBuffer.wrap(record.key()));
            }
            keys = found;
        }
        return keys;
    }

    /** Its first offset per partition: where to start again when it failed. */
    Map<TopicPartition, Long> starts() {
        Map<TopicPartition, Long> starts = new HashMap<>();
        for (TopicPartition partition : records.partitions()) {
            starts.put(partition, records.records(partition).get(0).offset());
        }
        return starts;
    }

    /**
     * Stores {@code part}; when the store refuses it for its data, splits it in halves (in order) until each
     * refused record stands alone, dead-letters those and stores the rest. Answers how many were stored.
     */
    private int storeIsolating(List<Consumed<E>> part) throws Exception {
        if (part.isEmpty()) {
            return 0;
        }
        try {
            Duration timeout = context.storeTimeout();
            VertxContextSupport.subscribeAndAwait(() -> context.store().store(part).ifNoItem().after(timeout)
                    .failWith(() -> new StoreUnavailableException(StoreFault.TIMEOUT,
                            "the store did not complete within " + timeout.toMillis() + " ms", null)));
            return part.size();
        } catch (Throwable failure) {
            if (StoreFault.of(failure) != StoreFault.DATA) {
                if (failure instanceof Exception e) {
                    throw e;
                }
                if (failure instanceof Error error) {
                    throw error;
                }
                throw new IllegalStateException(failure);
            }
            if (part.size() > 1) {
                int half = part.size() / 2;
                return storeIsolating(part.subList(0, half)) + storeIsolating(part.subList(half, part.size()));
            }
            ConsumerRecord<byte[], byte[]> record = sources.get(part.get(0));
            Refusal refusal = new Refusal("value: " + storeReason(failure) + " [" + Refusals.STORE_REFUSED + "]",
                    Refusals.STORE_REFUSED);
            LOG.warnf("the store refused %s/%d/%d: %s", record.topic(), record.partition(), record.offset(),
                    refusal.reason());
            context.refusals().refuse(new TopicPartition(record.topic(), record.partition()), record.offset(), refusal);
            send(record, refusal);
            return 0;
        }
    }

    private void send(ConsumerRecord<byte[], byte[]> record, Refusal refusal) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        // remembered as soon as Kafka has it, even if this batch is given up meanwhile: a retry sends none twice
        letters.add(new Letter(record, refusal, context.deadLetters().send(record, refusal.reason(),
                () -> context.refusals().acknowledged(partition, record.offset()))));
    }

    /** Waits for every dead letter; records each acknowledged one, then fails if any was not. */
    private void awaitLetters() throws LetterFailure {
        LetterFailure failed = null;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LETTER_TIMEOUT_MS);
        for (Letter letter : letters) {
            try {
                letter.sent().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                deadLettered++;
                context.metrics().deadLettered(letter.refusal().type());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LetterFailure(e);
            } catch (Exception e) {
                if (DeadLetters.isTooLarge(e) && context.deadLetters().givenUpAsTooLarge(letter.record())) {
                    skip(letter, e);
                } else if (failed == null) {
                    failed = new LetterFailure(e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * A letter Kafka has refused as too large for longer than the give-up time would be refused on every retry,
     * holding up its partition for ever: the record is skipped instead, counted ({@code outpost.ingest.dead.letters.skipped}) and logged with where it was.
     */
    private void skip(Letter letter, Exception failure) {
        ConsumerRecord<byte[], byte[]> record = letter.record();
        LOG.errorf("skipped %s/%d/%d: its dead letter (%s) was refused as too large: %s", record.topic(),
                record.partition(), record.offset(), letter.refusal().reason(), failure.getCause());
        context.refusals().acknowledged(new TopicPartition(record.topic(), record.partition()), record.offset());
        context.metrics().letterSkipped(letter.refusal().type());
    }

    /** The store's words for a refusal, for the dead letter's reason. */
    private static String storeReason(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null && !(t instanceof PgException)) {
            t = t.getCause();
        }
        if (t instanceof PgException pg) {
            return "the store refused it: " + pg.getErrorMessage() + " (SQLSTATE " + pg.getSqlState() + ")";
        }
        return "the store refused it: " + failure;
    }

    /** A dead letter on its way, with the record it replaces. */
    private record Letter(ConsumerRecord<byte[], byte[]> record, Refusal refusal, Future<RecordMetadata> sent) {
    }

    /** Kafka did not acknowledge a dead letter: the batch is retried like a failed store. */
    static final class LetterFailure extends Exception {
        LetterFailure(Throwable cause) {
            super("a dead letter was not acknowledged: " + cause, cause);
        }
    }
}
