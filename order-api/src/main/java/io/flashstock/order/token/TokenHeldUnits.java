package io.flashstock.order.token;

import io.flashstock.order.stock.HeldUnits;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The units the item's purchase tokens hold, for a rebuild of its counter and for the reconciliation: every hold
 * in Redis, less those whose order (its code is the token's id) the database has.
 */
@Component
class TokenHeldUnits implements HeldUnits {

    /** Order codes asked for per query. */
    private static final int LOOKUP_BATCH = 500;

    private final TokenHolds holds;
    private final JdbcClient jdbc;

    TokenHeldUnits(TokenHolds holds, JdbcClient jdbc) {
        this.holds = holds;
        this.jdbc = jdbc;
    }

    @Override
    public List<String> committedAmongHolds(String itemCode) {
        var ids = holds.all(itemCode).keySet().stream().map(Object::toString).toList();
        return List.copyOf(committed(ids));
    }

    @Override
    public Outstanding outstanding(String itemCode, long generation) {
        Map<Object, Object> all = holds.all(itemCode);
        Set<String> committed = committed(all.keySet().stream().map(Object::toString).toList());
        long count = 0;
        long units = 0;
        for (var entry : all.entrySet()) {
            // state:quantity:generation:…
            String[] parts = entry.getValue().toString().split(":", 4);
            if (parts.length == 4 && parts[2].equals(Long.toString(generation))
                    && !committed.contains(entry.getKey().toString())) {
                count++;
                units += Long.parseLong(parts[1]);
            }
        }
        return new Outstanding(count, units);
    }

    private Set<String> committed(List<String> orderCodes) {
        var found = new HashSet<String>();
        for (int from = 0; from < orderCodes.size(); from += LOOKUP_BATCH) {
            var batch = new ArrayList<>(orderCodes.subList(from, Math.min(from + LOOKUP_BATCH, orderCodes.size())));
            found.addAll(jdbc.sql("SELECT order_code FROM purchase_order WHERE order_code IN (:codes)")
                    .param("codes", batch).query(String.class).list());
        }
        return found;
    }
}
