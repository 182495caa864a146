package io.flashstock.order.dashboard;

import org.springframework.http.CacheControl;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /admin/dashboard/snapshot}: the page's data, behind the admin token like every /admin path. */
@RestController
class DashboardController {

    private final DashboardSnapshots snapshots;

    DashboardController(DashboardSnapshots snapshots) {
        this.snapshots = snapshots;
    }

    @GetMapping("/admin/dashboard/snapshot")
    ResponseEntity<DashboardSnapshot> snapshot() {
        return ResponseEntity.ok().cacheControl(CacheControl.noStore()).body(snapshots.current());
    }
}
