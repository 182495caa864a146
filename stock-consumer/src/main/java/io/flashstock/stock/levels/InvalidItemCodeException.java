package io.flashstock.stock.levels;

import io.flashstock.contract.ItemCodes;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/** An item code no stock database row can have: answered as a 400 problem with code {@code INVALID_REQUEST}. */
class InvalidItemCodeException extends ErrorResponseException {

    InvalidItemCodeException() {
        super(HttpStatus.BAD_REQUEST, problem(), null);
    }

    private static ProblemDetail problem() {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                "itemCode must be 1 to " + ItemCodes.MAX_LENGTH + " printable ascii characters");
        problem.setTitle("Invalid request");
        problem.setProperty("code", "INVALID_REQUEST");
        return problem;
    }
}
