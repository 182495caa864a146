package io.flashstock.stock.levels;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/** No stock reset of this item has been applied: answered as a 404 problem with code {@code ITEM_NOT_FOUND}. */
class UnknownItemException extends ErrorResponseException {

    UnknownItemException(String itemCode) {
        super(HttpStatus.NOT_FOUND, problem(itemCode), null);
    }

    private static ProblemDetail problem(String itemCode) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND,
                "The stock database has no level for item " + itemCode);
        problem.setTitle("Unknown item");
        problem.setProperty("code", "ITEM_NOT_FOUND");
        return problem;
    }
}
