package io.flashstock.order.dashboard;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The page's charting library comes from order-api's own classpath (its webjar), at the version the page names. */
class DashboardPageTest {

    private static final Pattern WEBJAR = Pattern.compile("\"/webjars/([^\"]+)\"");

    @Test
    void everyWebjarThePageLoadsIsServedByOrderApi() throws IOException {
        String page;
        try (InputStream in = getClass().getResourceAsStream("/static/dashboard/index.html")) {
            page = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        var paths = WEBJAR.matcher(page).results().map(m -> m.group(1)).toList();

        assertThat(paths).as("uPlot's script and stylesheet").hasSize(2);
        for (String path : paths) {
            assertThat(getClass().getResource("/META-INF/resources/webjars/" + path)).as(path).isNotNull();
        }
    }
}
