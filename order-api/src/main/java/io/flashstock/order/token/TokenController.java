package io.flashstock.order.token;

import io.flashstock.order.placement.core.GateEndpoints;
import io.flashstock.order.placement.core.Outcome;
import io.flashstock.order.refusal.Refusal;
import io.flashstock.order.web.InputRules;
import io.flashstock.order.web.Problems;
import io.flashstock.order.web.RefusalProblems;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import java.time.Instant;

/**
 * {@code POST /order/stock/tokens}: issues a purchase token for an item sold through the token gate, 201 with the
 * signed token and what it holds; refused like an order (409 sold out, limit reached, wrong gate; 404 unknown item;
 * 503). The order is then placed at {@code POST /order/stock/limit} with {@code Authorization: Bearer <token>}.
 */
@RestController
class TokenController {

    /** The body, as an order's. */
    record TokenRequest(String itemCode, String userId, Integer quantity) {
    }

    /** The 201 answer. */
    record TokenAnswer(String token, String itemCode, String userId, int quantity, Instant expiresAt) {
    }

    private final IssueToken issueToken;
    private final InputRules rules;

    TokenController(IssueToken issueToken, InputRules rules) {
        this.issueToken = issueToken;
        this.rules = rules;
    }

    @PostMapping(path = GateEndpoints.TOKEN, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<?> issue(@RequestBody TokenRequest request) {
        rules.checkOrder(request.itemCode(), request.userId(), request.quantity(), null);
        IssueToken.Outcome outcome = issueToken.issue(request.itemCode(), request.userId(), request.quantity());
        if (outcome instanceof IssueToken.Issued issued) {
            var claims = issued.claims();
            return ResponseEntity.status(HttpStatus.CREATED).body(new TokenAnswer(issued.token(), claims.itemCode(),
                    claims.userId(), claims.quantity(), claims.expiresAt()));
        }
        return Problems.answer(refusal(request, (IssueToken.Refused) outcome));
    }

    private static ProblemDetail refusal(TokenRequest request, IssueToken.Refused refused) {
        String item = request.itemCode();
        ProblemDetail problem;
        var refusal = refused.refusal();
        if (refusal instanceof Outcome.SoldOut soldOut) {
            problem = RefusalProblems.detail(Refusal.SOLD_OUT, "item " + item + " has " + soldOut.remaining()
                    + " left, " + request.quantity() + " asked");
            problem.setProperty("remaining", soldOut.remaining());
        } else if (refusal instanceof Outcome.LimitReached limit) {
            problem = RefusalProblems.detail(Refusal.PER_USER_LIMIT_REACHED, "user " + request.userId() + " holds or "
                    + "bought " + limit.bought() + " of item " + item + " and may buy " + limit.limit());
            problem.setProperty("perUserLimit", limit.limit());
            problem.setProperty("bought", limit.bought());
        } else if (refusal instanceof Outcome.WrongGate wrong) {
            problem = RefusalProblems.detail(Refusal.WRONG_GATE, "item " + item + " is sold through its gate "
                    + wrong.gate().code() + ", not with purchase tokens");
            problem.setProperty("gate", wrong.gate().code());
        } else {
            problem = RefusalProblems.detail(Refusal.UNKNOWN_ITEM, "no stock is set for item " + item);
        }
        problem.setProperty("itemCode", item);
        return problem;
    }
}
