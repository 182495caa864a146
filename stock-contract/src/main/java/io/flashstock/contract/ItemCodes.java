package io.flashstock.contract;

import java.util.regex.Pattern;

/** What an item code may be anywhere it is stored: a key of the ascii {@code item_code} columns of both databases. */
public final class ItemCodes {

    /** Width of every {@code item_code} column. */
    public static final int MAX_LENGTH = 64;

    private static final Pattern STORABLE = Pattern.compile("[\\x21-\\x7E]{1," + MAX_LENGTH + "}");

    private ItemCodes() {
    }

    /**
     * 1 to {@link #MAX_LENGTH} printable ascii characters. Anything else cannot be a key of those columns, and
     * MariaDB refuses to compare it with them at all (an illegal mix of collations), so it is refused before a query.
     */
    public static boolean isStorable(String itemCode) {
        return itemCode != null && STORABLE.matcher(itemCode).matches();
    }
}
