package io.flashstock.stock.support;

import io.flashstock.testsupport.TestInfrastructure;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import java.util.Map;

/** Direct reads of a test's stock database, for assertions that must not go through the service. */
public final class StockDatabase {

    private final JdbcTemplate jdbc;

    public StockDatabase(String jdbcUrl) {
        var infra = TestInfrastructure.get();
        this.jdbc = new JdbcTemplate(new DriverManagerDataSource(jdbcUrl, infra.dbUser(), infra.dbPassword()));
    }

    /** The item's row, or an empty map while it has none (or the stock_level table is not created yet). */
    public Map<String, Object> level(String itemCode) {
        if (!tableExists()) {
            return Map.of();
        }
        return jdbc.queryForList("SELECT * FROM stock_level WHERE item_code = ?", itemCode).stream()
                .findFirst().orElse(Map.of());
    }

    public long quantity(String itemCode) {
        return ((Number) level(itemCode).getOrDefault("quantity", -1L)).longValue();
    }

    /** Deductions applied to all items (0 before the schema exists). */
    public long eventsApplied() {
        if (!tableExists()) {
            return 0;
        }
        Long sum = jdbc.queryForObject("SELECT COALESCE(SUM(events_applied), 0) FROM stock_level", Long.class);
        return sum == null ? 0 : sum;
    }

    public long count(String table) {
        Long count = jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Long.class);
        return count == null ? 0 : count;
    }

    public JdbcTemplate jdbc() {
        return jdbc;
    }

    private boolean tableExists() {
        Long tables = jdbc.queryForObject(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'stock_level'",
                Long.class);
        return tables != null && tables > 0;
    }
}
