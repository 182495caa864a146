package io.flashstock.order;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.importer.ImportOption.DoNotIncludeTests;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import org.springframework.http.ResponseEntity;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
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
     * The HTTP adapters outside {@code web}: what stands in front of the controllers (servlet filters, MVC
     * interceptors and configurations, the endpoint's latency and rejection counters) and the clients of other
     * services' HTTP APIs (stock-consumer's ledger, the peers' metrics for the dashboard). Each by name, not by the
     * interface it implements, since MVC's interfaces have only default methods: any class could claim one.
     */
    private static final DescribedPredicate<HasName> HTTP_ADAPTERS = nameMatching("io\\.flashstock\\.order\\.("
            + "placement\\.(OrderWebConfiguration|OrderRejections|guard\\.(EndpointLatency|OverloadShedding))"
            + "|ratelimit\\.(ClientRateLimit|RateLimitConfiguration)"
            + "|reconciliation\\.(StockConsumerLedger|ReconciliationConfiguration)"
            + "|dashboard\\.(DashboardConfiguration|ProcessScrapes|ProcessCpu))(\\$.*)?")
            .as("HTTP adapters");

    /** Load shedding answers before any controller runs, with a 503 body of its own made once at start-up. */
    private static final DescribedPredicate<HasName> ANSWERS_BEFORE_THE_CONTROLLERS =
            nameMatching("io\\.flashstock\\.order\\.placement\\.guard\\.OverloadShedding(\\$.*)?")
                    .as("load shedding");

    /**
     * Problem answers are the controllers' and the {@code web} package's business: use cases and adapters say no in
     * the domain's terms (a {@code Refusal} returned, or a {@code RefusedException}), and {@code web}'s
     * {@code RefusalProblems} alone turns that into a problem+json answer.
     */
    @ArchTest
    static final ArchRule onlyTheWebLayerAnswersWithProblems =
            noClasses().that().resideOutsideOfPackage("io.flashstock.order.web..")
                    .and().haveSimpleNameNotEndingWith("Controller")
                    .and(not(ANSWERS_BEFORE_THE_CONTROLLERS))
                    .should().dependOnClassesThat().belongToAnyOf(ProblemException.class, ProblemType.class,
                            ResponseEntity.class)
                    .orShould().dependOnClassesThat().resideInAPackage("io.flashstock.web.problem..");

    /** HTTP itself (servlets, Spring's web and HTTP types) only in {@code web}, the controllers and the adapters. */
    @ArchTest
    static final ArchRule onlyTheWebLayerSpeaksHttp =
            noClasses().that().resideOutsideOfPackage("io.flashstock.order.web..")
                    .and().haveSimpleNameNotEndingWith("Controller")
                    .and(not(HTTP_ADAPTERS))
                    .should().dependOnClassesThat().resideInAnyPackage("org.springframework.web..",
                            "org.springframework.http..", "jakarta.servlet..");

    /**
     * Who may use whom inside {@code placement}: the use case (the package itself: endpoint, {@code PlaceOrder},
     * repeated orders) on top, the DB-lock baseline beside it; then the settling of orders in doubt; then the Redis
     * gate and the group commit, which do not know each other; the guards (breaker, shedding, latency) under the
     * commit; and {@code core}, the order's own types, settings and meters, which uses none of them. Dependencies
     * from outside {@code placement} are not this rule's business.
     */
    @ArchTest
    static final ArchRule placementLayers = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("use case").definedBy("io.flashstock.order.placement")
            .layer("DB-lock baseline").definedBy("io.flashstock.order.placement.dblock..")
            .layer("in doubt").definedBy("io.flashstock.order.placement.indoubt..")
            .layer("gate").definedBy("io.flashstock.order.placement.gate..")
            .layer("commit").definedBy("io.flashstock.order.placement.commit..")
            .layer("guard").definedBy("io.flashstock.order.placement.guard..")
            .layer("core").definedBy("io.flashstock.order.placement.core..")
            .whereLayer("use case").mayOnlyBeAccessedByLayers("DB-lock baseline")
            .whereLayer("DB-lock baseline").mayNotBeAccessedByAnyLayer()
            .whereLayer("in doubt").mayOnlyBeAccessedByLayers("use case")
            .whereLayer("gate").mayOnlyBeAccessedByLayers("use case", "DB-lock baseline", "in doubt")
            .whereLayer("commit").mayOnlyBeAccessedByLayers("use case", "DB-lock baseline", "in doubt")
            .whereLayer("guard").mayOnlyBeAccessedByLayers("use case", "DB-lock baseline", "in doubt", "commit")
            .whereLayer("core").mayOnlyBeAccessedByLayers("use case", "DB-lock baseline", "in doubt", "gate",
                    "commit", "guard");

    /** The DB-lock baseline is only there to be compared with: the engine never reaches into it. */
    @ArchTest
    static final ArchRule nothingDependsOnTheComparisonGate =
            noClasses().that().resideOutsideOfPackage("io.flashstock.order.placement.dblock..")
                    .should().dependOnClassesThat().resideInAPackage("io.flashstock.order.placement.dblock..");
}
