package io.flashstock.order.web;

import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What the endpoints accept. A request that breaks a rule is refused with 400 {@code INVALID_REQUEST}
 * listing every broken rule, before anything is read or written.
 */
@Component
public class InputRules {

    /** Letters, digits, dot, underscore and dash; no braces, so the Redis hash tag {item} stays intact. */
    private static final Pattern ITEM_CODE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    /** The user id column's width in the orders schema. */
    private static final int USER_ID_MAX_LENGTH = 64;
    private static final int IDEMPOTENCY_KEY_MAX_LENGTH = 128;

    private final WebSettings settings;

    public InputRules(WebSettings settings) {
        this.settings = settings;
    }

    public void checkOrder(String itemCode, String userId, Integer quantity, String idempotencyKey) {
        var errors = new ArrayList<String>();
        itemCode(itemCode, errors);
        if (userId == null || userId.isBlank()) {
            errors.add("userId is required");
        } else if (userId.length() > USER_ID_MAX_LENGTH) {
            errors.add("userId must be at most " + USER_ID_MAX_LENGTH + " characters");
        } else if (userId.chars().anyMatch(Character::isISOControl)) {
            errors.add("userId must not contain control characters");
        } else if (userId.codePoints().anyMatch(c -> Character.getType(c) == Character.SURROGATE)) {
            // a surrogate left without its pair after decoding: UTF-8 cannot carry it, so Redis and the
            // database would both store '?', and two such ids would be one user
            errors.add("userId must be valid Unicode (a UTF-16 surrogate without its pair is not)");
        }
        if (quantity == null) {
            errors.add("quantity is required");
        } else if (quantity < 1 || quantity > settings.maxQuantity()) {
            errors.add("quantity must be between 1 and " + settings.maxQuantity());
        }
        if (idempotencyKey != null && (idempotencyKey.isEmpty() || idempotencyKey.length() > IDEMPOTENCY_KEY_MAX_LENGTH
                || !idempotencyKey.chars().allMatch(c -> c > ' ' && c < 0x7f))) {
            errors.add("Idempotency-Key must be 1 to " + IDEMPOTENCY_KEY_MAX_LENGTH + " visible ASCII characters");
        }
        refuseIfAny(errors);
    }

    public void checkItemCode(String itemCode) {
        var errors = new ArrayList<String>();
        itemCode(itemCode, errors);
        refuseIfAny(errors);
    }

    private void itemCode(String itemCode, List<String> errors) {
        if (itemCode == null || itemCode.isBlank()) {
            errors.add("itemCode is required");
        } else if (itemCode.length() > settings.itemCodeMaxLength()) {
            errors.add("itemCode must be at most " + settings.itemCodeMaxLength() + " characters");
        } else if (!ITEM_CODE.matcher(itemCode).matches()) {
            errors.add("itemCode may only contain letters, digits, '.', '_' and '-', starting with a letter or digit");
        }
    }

    /** Refuses a request with every rule it broke, if it broke any; the other packages' rules answer alike. */
    public static void refuseIfAny(List<String> errors) {
        if (!errors.isEmpty()) {
            throw new ProblemException(ProblemType.INVALID_REQUEST, String.join("; ", errors)).with("errors", errors);
        }
    }
}
