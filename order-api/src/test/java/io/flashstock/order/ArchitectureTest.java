package io.flashstock.order;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption.DoNotIncludeTests;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.flashstock.order.web.ProblemException;
import io.flashstock.order.web.ProblemType;
import jakarta.servlet.Filter;
import org.springframework.http.ResponseEntity;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
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
     * The HTTP adapters, HTTP by what they are: the servlet filters, MVC interceptors and MVC configurations, which
     * stand in front of the controllers (and may answer for them, as load shedding does), with the configurations
     * that register them (latency, rate limit); and the clients of other services' HTTP APIs (stock-consumer's
     * ledger, the peers' metrics for the dashboard). Named, so that a use case cannot become one unseen.
     */
    private static final DescribedPredicate<JavaClass> HTTP_ADAPTERS = assignableTo(Filter.class)
            .or(assignableTo(HandlerInterceptor.class)).or(assignableTo(WebMvcConfigurer.class))
            .or(nameMatching("io\\.flashstock\\.order\\.(placement\\.guard\\.EndpointLatency"
                    + "|ratelimit\\.RateLimitConfiguration"
                    + "|reconciliation\\.(StockConsumerLedger|ReconciliationConfiguration)"
                    + "|dashboard\\.(ProcessScrapes|ProcessCpu))(\\$.*)?"))
            .as("HTTP adapters");

    /**
     * HTTP is the controllers', the HTTP adapters' and the {@code web} package's business: use cases and adapters
     * say no in the domain's terms (a {@code Refusal} returned, or a {@code RefusedException}), and {@code web}'s
     * {@code RefusalProblems} alone turns that into a problem+json answer.
     */
    @ArchTest
    static final ArchRule onlyTheWebLayerSpeaksHttp =
            noClasses().that().resideOutsideOfPackage("io.flashstock.order.web..")
                    .and().haveSimpleNameNotEndingWith("Controller")
                    .and(not(HTTP_ADAPTERS))
                    .should().dependOnClassesThat().belongToAnyOf(ProblemException.class, ProblemType.class,
                            ResponseEntity.class)
                    .orShould().dependOnClassesThat().resideInAPackage("org.springframework.web..");

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
