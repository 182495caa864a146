package io.flashstock.relay;

import com.tngtech.archunit.core.importer.ImportOption.DoNotIncludeTests;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import java.time.Clock;
import java.time.Instant;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The rules of outbox-relay, read from the compiled main classes: no two packages depend on each other. The
 * root package is left out of the slices: it is the application shell, and its settings record ({@link RelaySettings})
 * is read by the packages below it.
 */
@AnalyzeClasses(packages = "io.flashstock.relay", importOptions = DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles =
            slices().matching("io.flashstock.relay.(*)..").should().beFreeOfCycles();

    /** Wall-clock time comes from the Clock bean, so that a test can fix it; durations use System.nanoTime. */
    @ArchTest
    static final ArchRule wallClockTimeComesFromTheClockBean =
            noClasses().that().doNotHaveSimpleName("OutboxRelayApplication")
                    .should().callMethod(Instant.class, "now")
                    .orShould().callMethod(Clock.class, "systemUTC")
                    .orShould().callMethod(Clock.class, "systemDefaultZone")
                    .orShould().callMethod(System.class, "currentTimeMillis");
}
