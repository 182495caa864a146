package io.flashstock.stock;

import com.tngtech.archunit.core.importer.ImportOption.DoNotIncludeTests;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import java.time.Clock;
import java.time.Instant;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The rules of stock-consumer, read from the compiled main classes: no two packages depend on each other,
 * and the root package stays the application shell that nothing imports.
 */
@AnalyzeClasses(packages = "io.flashstock.stock", importOptions = DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles =
            slices().matching("io.flashstock.stock.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule nothingDependsOnTheApplicationShell =
            noClasses().that().resideInAPackage("io.flashstock.stock.*..")
                    .should().dependOnClassesThat().resideInAPackage("io.flashstock.stock");

    /** Wall-clock time comes from the Clock bean, so that a test can fix it; durations use System.nanoTime. */
    @ArchTest
    static final ArchRule wallClockTimeComesFromTheClockBean =
            noClasses().that().doNotHaveSimpleName("StockConsumerApplication")
                    .should().callMethod(Instant.class, "now")
                    .orShould().callMethod(Clock.class, "systemUTC")
                    .orShould().callMethod(Clock.class, "systemDefaultZone")
                    .orShould().callMethod(System.class, "currentTimeMillis");
}
