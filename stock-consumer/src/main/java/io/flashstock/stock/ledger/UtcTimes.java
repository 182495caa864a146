package io.flashstock.stock.ledger;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The stock database's DATETIME(6) columns hold UTC. Values are bound as UTC text with microseconds: that keeps
 * them UTC whatever the JVM's or the session's time zone is, and keeps the fraction on MariaDB, whose version
 * string ("5.5.5-10.11…") makes Connector/J drop the fractional seconds of temporal parameters.
 */
public final class UtcTimes {

    private static final DateTimeFormatter DATETIME_6 =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC);

    private UtcTimes() {
    }

    /** The parameter value for a DATETIME(6) column. */
    public static String toUtc(Instant instant) {
        return DATETIME_6.format(instant);
    }

    public static Instant fromUtc(LocalDateTime utc) {
        return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
    }
}
