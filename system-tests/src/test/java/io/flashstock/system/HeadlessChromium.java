package io.flashstock.system;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

/**
 * Debian's chromium, headless, through Debian's chromedriver given by path, so Selenium Manager never looks for
 * (or downloads) a browser. {@code scripts/stack up} installs both. A missing browser fails the test; a developer
 * without one may skip it explicitly with {@code FLASHSTOCK_BROWSER_TESTS=off}.
 */
final class HeadlessChromium {

    private static final File BROWSER = new File(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    private static final File DRIVER = new File(System.getenv().getOrDefault("CHROMEDRIVER", "/usr/bin/chromedriver"));

    private HeadlessChromium() {
    }

    static ChromeDriver start() {
        Assumptions.assumeFalse("off".equals(System.getenv("FLASHSTOCK_BROWSER_TESTS")),
                "browser tests switched off by FLASHSTOCK_BROWSER_TESTS=off");
        if (!BROWSER.canExecute() || !DRIVER.canExecute()) {
            throw new IllegalStateException(BROWSER + " or " + DRIVER + " is missing: apt-get install -y chromium "
                    + "chromium-driver (scripts/stack up does), or set FLASHSTOCK_BROWSER_TESTS=off to skip");
        }
        try {
            var options = new ChromeOptions();
            options.setBinary(BROWSER);
            // as root in a container: no sandbox; nothing in the background that would reach the network
            options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1400,1000",
                    "--user-data-dir=" + Files.createTempDirectory("flashstock-chromium"));
            var service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER).usingAnyFreePort().build();
            return new ChromeDriver(service, options);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
