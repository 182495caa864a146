package io.flashstock.order;

import com.tngtech.archunit.core.importer.ImportOption.DoNotIncludeTests;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.freeze.FreezingArchRule;
import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import org.springframework.http.ResponseEntity;

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

    /**
     * HTTP is the controllers' and the {@code web} package's business: use cases and adapters say no in the
     * domain's terms (a result or a domain exception), and one place turns that into a problem+json answer. Frozen:
     * the violations of when it was written are in {@code src/test/archunit-store} (issue 30 item 1, what is left);
     * a new one fails, and one fixed leaves the store for good.
     */
    @ArchTest
    static final ArchRule onlyTheWebLayerSpeaksHttp = FreezingArchRule.freeze(
            noClasses().that().resideOutsideOfPackage("io.flashstock.order.web..")
                    .and().haveSimpleNameNotEndingWith("Controller")
                    .should().dependOnClassesThat().belongToAnyOf(ProblemException.class, ProblemType.class,
                            ResponseEntity.class)
                    .orShould().dependOnClassesThat().resideInAPackage("org.springframework.web.."));

    /** The DB-lock baseline is only there to be compared with: the engine never reaches into it. */
    @ArchTest
    static final ArchRule nothingDependsOnTheComparisonGate =
            noClasses().that().resideOutsideOfPackage("io.flashstock.order.placement.dblock..")
                    .should().dependOnClassesThat().resideInAPackage("io.flashstock.order.placement.dblock..");
}
