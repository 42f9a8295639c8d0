package io.outpost.notification;

import java.time.Duration;


import io.outpost.notification.store.NotificationStore;
import io.outpost.support.store.StoreDeadline;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;

/**
 * A second replica's store, on a connection of its own to the shared PostgreSQL: what it inserts is announced to
 * the instance under test as another instance's insert.
 */
final class OtherReplica implements AutoCloseable {

    private final io.vertx.sqlclient.Pool pool;
    final NotificationStore store;

    /** @param applicationName the connection's {@code application_name} (the origin its announcements name) */
    OtherReplica(String applicationName) {
        PostgresConnection pg = BackingServices.shared().postgres();
        this.pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(1)).connectingTo(new PgConnectOptions()
                .setHost(pg.host()).setPort(pg.port()).setDatabase(pg.database()).setUser(pg.username())
                .setPassword(pg.password()).addProperty("application_name", applicationName)).build();
        this.store = new NotificationStore(Pool.newInstance(pool), new StoreDeadline(Duration.ofSeconds(5)));
    }

    @Override
    public void close() {
        pool.close();
    }
}
