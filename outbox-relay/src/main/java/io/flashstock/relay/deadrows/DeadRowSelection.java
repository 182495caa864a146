package io.flashstock.relay.deadrows;

import io.flashstock.relay.web.ProblemException;
import io.flashstock.relay.web.ProblemType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which DEAD rows a requeue takes, read from the request's parameters: exactly one of {@code id=<row id>},
 * {@code itemCode=<item>} (the row's key) or {@code all=true}. Anything else is refused with 400
 * {@code INVALID_REQUEST} before the database is touched; an unknown parameter too, so that a misspelt
 * filter next to {@code all=true} cannot requeue every row.
 *
 * @param id the one row's id, or null
 * @param itemCode the item whose rows go, or null
 */
record DeadRowSelection(Long id, String itemCode) {

    private static final String ID = "id";
    private static final String ITEM_CODE = "itemCode";
    private static final String ALL = "all";
    private static final Set<String> PARAMETERS = Set.of(ID, ITEM_CODE, ALL);
    /** As order-api accepts item codes; the outbox's aggregate_key is a VARCHAR(64). */
    private static final Pattern ITEM_CODE_PATTERN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern ID_PATTERN = Pattern.compile("[1-9][0-9]{0,17}");

    static DeadRowSelection of(Map<String, String[]> parameters) {
        List<String> errors = new ArrayList<>();
        parameters.forEach((name, values) -> {
            if (!PARAMETERS.contains(name)) {
                errors.add("unknown parameter '" + name + "'");
            } else if (values.length != 1) {
                errors.add("'" + name + "' given more than once");
            }
        });
        List<String> given = PARAMETERS.stream().filter(parameters::containsKey).sorted().toList();
        if (given.size() != 1) {
            errors.add("give exactly one of id=<row id>, itemCode=<item> or all=true; got "
                    + (given.isEmpty() ? "none" : String.join(", ", given)));
        }
        if (!errors.isEmpty()) {
            throw invalid(errors);
        }
        String value = parameters.get(given.get(0))[0];
        return switch (given.get(0)) {
            case ID -> {
                if (!ID_PATTERN.matcher(value).matches()) {
                    throw invalid(List.of("id must be a row id: a positive whole number"));
                }
                yield new DeadRowSelection(Long.parseLong(value), null);
            }
            case ITEM_CODE -> {
                if (!ITEM_CODE_PATTERN.matcher(value).matches()) {
                    throw invalid(List.of("itemCode must be 1 to 64 letters, digits, '.', '_' or '-', "
                            + "starting with a letter or digit"));
                }
                yield new DeadRowSelection(null, value);
            }
            default -> {
                if (!"true".equals(value)) {
                    throw invalid(List.of("all must be true"));
                }
                yield new DeadRowSelection(null, null);
            }
        };
    }

    boolean all() {
        return id == null && itemCode == null;
    }

    @Override
    public String toString() {
        return id != null ? "id " + id : itemCode != null ? "item " + itemCode : "all";
    }

    private static ProblemException invalid(List<String> errors) {
        return new ProblemException(ProblemType.INVALID_REQUEST, String.join("; ", errors));
    }
}
