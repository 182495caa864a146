package io.flashstock.order.placement.dblock;

import org.springframework.transaction.PlatformTransactionManager;

import javax.sql.DataSource;

/**
 * Makes the DB-lock baseline's transaction manager over its own pool ({@link DbLockBaseline}); a plain
 * {@code JdbcTransactionManager} unless the context provides one, as a test does to make its commits fail.
 */
@FunctionalInterface
public interface DbLockTransactions {

    PlatformTransactionManager over(DataSource pool);
}
