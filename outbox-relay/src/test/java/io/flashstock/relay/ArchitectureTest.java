package io.flashstock.relay;

import com.tngtech.archunit.core.importer.ImportOption.DoNotIncludeTests;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package rule of outbox-relay, read from the compiled main classes: no two packages depend on each other. The
 * root package is left out of the slices: it is the application shell, and its settings record ({@link RelaySettings})
 * is read by the packages below it.
 */
@AnalyzeClasses(packages = "io.flashstock.relay", importOptions = DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles =
            slices().matching("io.flashstock.relay.(*)..").should().beFreeOfCycles();
}
