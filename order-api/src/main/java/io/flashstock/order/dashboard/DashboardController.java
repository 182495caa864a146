package io.flashstock.order.dashboard;

import org.springframework.http.CacheControl;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /admin/dashboard/snapshot} and {@code GET /admin/dashboard/history}: the page's data, behind the admin
 * token like every /admin path.
 */
@RestController
class DashboardController {

    private final DashboardSnapshots snapshots;
    private final long everyMillis;

    DashboardController(DashboardSnapshots snapshots, DashboardSettings settings) {
        this.snapshots = snapshots;
        this.everyMillis = settings.refreshEvery().toMillis();
    }

    @GetMapping("/admin/dashboard/snapshot")
    ResponseEntity<DashboardSnapshot> snapshot() {
        return ResponseEntity.ok().cacheControl(CacheControl.noStore()).body(snapshots.current());
    }

    @GetMapping("/admin/dashboard/history")
    ResponseEntity<DashboardHistory> history() {
        return ResponseEntity.ok().cacheControl(CacheControl.noStore())
                .body(DashboardHistory.of(snapshots.history(), everyMillis));
    }
}
