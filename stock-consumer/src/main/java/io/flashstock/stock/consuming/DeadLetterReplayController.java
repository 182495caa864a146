package io.flashstock.stock.consuming;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /admin/dead-letters/replay}: applies what the dead-letter topic holds and can now be applied, once;
 * bearer token required (see {@code io.flashstock.admin.AdminAccess}).
 */
@RestController
class DeadLetterReplayController {

    private final DeadLetterReplay replay;

    DeadLetterReplayController(DeadLetterReplay replay) {
        this.replay = replay;
    }

    @PostMapping("/admin/dead-letters/replay")
    ReplayReport replay() {
        return replay.replay();
    }
}
