package io.flashstock.relay.deadrows;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The way back for DEAD rows; bearer token required (see {@code io.flashstock.admin.AdminAccess}).
 * {@code POST /admin/outbox/dead/requeue?id=<row id>}, {@code ?itemCode=<item>} or {@code ?all=true}.
 */
@RestController
class DeadRowsController {

    private final DeadRowRequeue requeue;

    DeadRowsController(DeadRowRequeue requeue) {
        this.requeue = requeue;
    }

    @PostMapping(path = "/admin/outbox/dead/requeue", produces = MediaType.APPLICATION_JSON_VALUE)
    Requeued requeue(HttpServletRequest request) {
        return new Requeued(requeue.requeue(DeadRowSelection.of(request.getParameterMap())));
    }

    /** @param requeued how many DEAD rows went back to be published */
    record Requeued(long requeued) {
    }
}
