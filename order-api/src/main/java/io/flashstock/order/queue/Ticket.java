package io.flashstock.order.queue;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A waiting-room ticket: 128 random bits (its {@code id}, unguessable), then its item code, so that a poll or an
 * order finds the item's keys from the ticket alone. Both base64url, so the ticket is one opaque token.
 */
record Ticket(String itemCode, String id) {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final int ID_LENGTH = 22;
    /** The item codes InputRules accepts, at most 64 characters: 86 base64url characters. */
    private static final Pattern CODE = Pattern.compile("[A-Za-z0-9_-]{" + (ID_LENGTH + 2) + ",108}");
    private static final Pattern ITEM_CODE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    static Ticket issue(String itemCode) {
        byte[] random = new byte[16];
        RANDOM.nextBytes(random);
        return new Ticket(itemCode, ENCODER.encodeToString(random));
    }

    /** The ticket a client sent, or empty when it cannot be one (garbled, truncated, made up). */
    static Optional<Ticket> parse(String code) {
        if (code == null || !CODE.matcher(code).matches()) {
            return Optional.empty();
        }
        try {
            String itemCode = new String(Base64.getUrlDecoder().decode(code.substring(ID_LENGTH)),
                    StandardCharsets.UTF_8);
            return ITEM_CODE.matcher(itemCode).matches() ? Optional.of(new Ticket(itemCode, code.substring(0, ID_LENGTH)))
                    : Optional.empty();
        } catch (IllegalArgumentException notBase64) {
            return Optional.empty();
        }
    }

    /** What the client holds. */
    String code() {
        return id + ENCODER.encodeToString(itemCode.getBytes(StandardCharsets.UTF_8));
    }
}
