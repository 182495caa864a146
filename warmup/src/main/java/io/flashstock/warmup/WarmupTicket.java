package io.flashstock.warmup;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * What lets the warm-up's own orders through to its item, and no one else's: a random value made once per process,
 * sent by the warm-up in {@link #HEADER}. An order for the warm-up item without it is someone else's: it would be
 * answered 200 and then deleted by the warm-up's clean-up, so the service refuses it.
 */
public final class WarmupTicket {

    public static final String HEADER = "Flashstock-Warmup-Ticket";

    private final String value;

    public WarmupTicket() {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.value = HexFormat.of().formatHex(random);
    }

    public String value() {
        return value;
    }

    /** Whether {@code presented} is this process's ticket; compared in constant time. */
    public boolean admits(String presented) {
        return presented != null && MessageDigest.isEqual(value.getBytes(StandardCharsets.US_ASCII),
                presented.getBytes(StandardCharsets.UTF_8));
    }
}
