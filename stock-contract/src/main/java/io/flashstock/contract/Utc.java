package io.flashstock.contract;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The DATETIME(6) columns of both databases hold UTC wall-clock time with microseconds. Instants are bound as text,
 * not as temporal values: Connector/J takes MariaDB 10.x ("5.5.5-10.x") for a server without fractional seconds and
 * would drop them, while the server itself parses the text exactly, on MySQL 8 too. The value does not depend on the
 * JVM's or the session's time zone either.
 */
public final class Utc {

    private static final DateTimeFormatter COLUMN = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS")
            .withZone(ZoneOffset.UTC);

    private Utc() {
    }

    /** The parameter value for a DATETIME(6) column: UTC text with microseconds (finer digits are cut). */
    public static String toColumn(Instant instant) {
        return COLUMN.format(instant);
    }

    /** The instant a DATETIME(6) column read as {@link LocalDateTime} holds, or null for SQL NULL. */
    public static Instant fromColumn(LocalDateTime value) {
        return value == null ? null : value.toInstant(ZoneOffset.UTC);
    }
}
