package io.flashstock.order;

import com.tngtech.archunit.core.importer.ImportOption.DoNotIncludeTests;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The rules of order-api, read from the compiled main classes: no two packages depend on each other, and the
 * root package stays the application shell that nothing imports.
 */
@AnalyzeClasses(packages = "io.flashstock.order", importOptions = DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles =
            slices().matching("io.flashstock.order.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule nothingDependsOnTheApplicationShell =
            noClasses().that().resideInAPackage("io.flashstock.order.*..")
                    .should().dependOnClassesThat().resideInAPackage("io.flashstock.order");

    /** The DB-lock baseline is only there to be compared with: the engine never reaches into it. */
    @ArchTest
    static final ArchRule nothingDependsOnTheComparisonGate =
            noClasses().that().resideOutsideOfPackage("io.flashstock.order.placement.dblock..")
                    .should().dependOnClassesThat().resideInAPackage("io.flashstock.order.placement.dblock..");
}
