package io.outpost.support.store;

import java.time.Duration;

/** {@link StoreConfig} with its defaults, for pools and connections the tests make themselves. */
record TestStoreConfig(Duration queryTimeout, Duration connectTimeout, int maxWaitQueue, Duration readIdleTimeout,
        Duration healthTimeout, Duration lockTimeout, Duration idleInTransactionTimeout) implements StoreConfig {

    static TestStoreConfig defaults() {
        return new TestStoreConfig(Duration.ofSeconds(5), Duration.ofSeconds(3), 1024, Duration.ofSeconds(60),
                Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(5));
    }

    TestStoreConfig readIdle(Duration readIdle) {
        return new TestStoreConfig(queryTimeout, connectTimeout, maxWaitQueue, readIdle, healthTimeout, lockTimeout,
                idleInTransactionTimeout);
    }

    TestStoreConfig lockWait(Duration lock) {
        return new TestStoreConfig(queryTimeout, connectTimeout, maxWaitQueue, readIdleTimeout, healthTimeout, lock,
                idleInTransactionTimeout);
    }

    TestStoreConfig idleInTransaction(Duration idle) {
        return new TestStoreConfig(queryTimeout, connectTimeout, maxWaitQueue, readIdleTimeout, healthTimeout,
                lockTimeout, idle);
    }
}
