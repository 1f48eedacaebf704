package io.gpupool.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package map of docs/architecture.md, enforced: the graph has no cycle at any depth, each
 * package depends only on the packages its row allows, and HTTP, SQL and the store stay in their
 * rooms. A failure names the offending class, the dependency and the line it is on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PackageRulesTest {
    private JavaClasses classes;

    @BeforeAll
    void importMainClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.gpupool");
    }

    @Test
    void noPackageDependsOnItselfThroughOthers() {
        slices().matching("io.gpupool.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void eachPackageDependsOnlyOnThePackagesItsRowInTheMapAllows() {
        layers().check(classes);
    }

    @Test
    void policyAndAllocatorArePureTheyNeverTouchTheStoreHttpOrSql() {
        noClasses().that().resideInAnyPackage("io.gpupool.policy..", "io.gpupool.allocator..", "io.gpupool.domain..",
                        "io.gpupool.snapshot..")
                .should().dependOnClassesThat().resideInAnyPackage("io.gpupool.store..", "io.gpupool.api..",
                        "io.micronaut.http..", "java.sql..")
                .because("the middle of the pipeline takes a snapshot and returns values (architecture.md)")
                .check(classes);
    }

    @Test
    void onlyTheApiAndTheAuthFilterSpeakHttp() {
        noClasses().that().resideOutsideOfPackages("io.gpupool.api..", "io.gpupool.auth..")
                .should().dependOnClassesThat().resideInAPackage("io.micronaut.http..")
                .because("controllers are the only door to HTTP; below them, refusals are ProblemExceptions")
                .check(classes);
    }

    @Test
    void theCommandLineIsARestClientThatNeverStartsMicronaut() {
        noClasses().that().resideInAnyPackage("io.gpupool.cli..", "io.gpupool.agent..")
                .should().dependOnClassesThat().resideInAnyPackage("io.micronaut..", "jakarta.inject..")
                .because("the CLI speaks REST to a running service and starts in a fraction of a second (docs/cli.md)")
                .check(classes);
    }

    @Test
    void onlyTheStoreRunsSql() {
        // telemetry's side tables (node_presence, device_sample and its rollups) are outside the
        // working set by design (docs/performance.md, "Node agent ingest"): their own writer, under
        // the writer epoch, not the row buffer. To be moved into store as one TelemetryRows class.
        noClasses().that().resideOutsideOfPackages("io.gpupool.store..", "io.gpupool.telemetry..")
                .should().dependOnClassesThat().haveFullyQualifiedName("java.sql.PreparedStatement")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.sql.Statement")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.sql.ResultSet")
                .because("rows are written and read in one place, with the writer epoch and the row buffer")
                .check(classes);
    }

    @Test
    void theDomainRecordsImportNothingOfOurs() {
        noClasses().that().resideInAPackage("io.gpupool.domain..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.gpupool", "io.gpupool.allocator..", "io.gpupool.api..", "io.gpupool.audit..",
                        "io.gpupool.auth..", "io.gpupool.catalog..", "io.gpupool.config..", "io.gpupool.fleet..", "io.gpupool.governance..",
                        "io.gpupool.inventory..", "io.gpupool.lease..", "io.gpupool.metrics..", "io.gpupool.policy..", "io.gpupool.pool..",
                        "io.gpupool.problem..", "io.gpupool.quota..", "io.gpupool.replay..", "io.gpupool.request..", "io.gpupool.simulation..",
                        "io.gpupool.snapshot..", "io.gpupool.store..", "io.gpupool.tenant..", "io.gpupool.cli..", "io.gpupool.webhook..",
                        "io.gpupool.clustersync..", "io.gpupool.prometheus..")
                .check(classes);
    }

    /** The table "Package map" in docs/architecture.md, bottom up. */
    static ArchRule layers() {
        return Architectures.layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("domain").definedBy("io.gpupool.domain..")
                .layer("problem").definedBy("io.gpupool.problem..")
                .layer("config").definedBy("io.gpupool.config..")
                .layer("catalog").definedBy("io.gpupool.catalog..")
                .layer("agent").definedBy("io.gpupool.agent..")
                .layer("snapshot").definedBy("io.gpupool.snapshot..")
                .layer("policy").definedBy("io.gpupool.policy..")
                .layer("allocator").definedBy("io.gpupool.allocator..")
                .layer("store").definedBy("io.gpupool.store..")
                .layer("audit").definedBy("io.gpupool.audit..")
                .layer("auth").definedBy("io.gpupool.auth..")
                .layer("governance").definedBy("io.gpupool.governance..")
                .layer("telemetry").definedBy("io.gpupool.telemetry..")
                .layer("inventory").definedBy("io.gpupool.inventory..")
                .layer("nodereport").definedBy("io.gpupool.nodereport..")
                .layer("clustersync").definedBy("io.gpupool.clustersync..")
                .layer("prometheus").definedBy("io.gpupool.prometheus..")
                .layer("tenancy").definedBy("io.gpupool.tenant..", "io.gpupool.pool..", "io.gpupool.quota..")
                .layer("lease").definedBy("io.gpupool.lease..")
                .layer("fleet").definedBy("io.gpupool.fleet..")
                .layer("profile").definedBy("io.gpupool.profile..")
                .layer("request").definedBy("io.gpupool.request..")
                .layer("replay").definedBy("io.gpupool.replay..")
                .layer("simulation").definedBy("io.gpupool.simulation..")
                .layer("metrics").definedBy("io.gpupool.metrics..")
                .layer("webhook").definedBy("io.gpupool.webhook..")
                .layer("accounting").definedBy("io.gpupool.accounting..")
                .layer("api").definedBy("io.gpupool.api..")
                .layer("cli").definedBy("io.gpupool.cli..")
                .layer("application").definedBy("io.gpupool")
                .whereLayer("domain").mayNotAccessAnyLayer()
                .whereLayer("problem").mayNotAccessAnyLayer()
                .whereLayer("config").mayNotAccessAnyLayer()
                .whereLayer("catalog").mayNotAccessAnyLayer()
                .whereLayer("agent").mayOnlyAccessLayers("catalog")
                .whereLayer("snapshot").mayOnlyAccessLayers("domain")
                .whereLayer("policy").mayOnlyAccessLayers("domain", "snapshot", "catalog")
                .whereLayer("allocator").mayOnlyAccessLayers("domain", "snapshot")
                .whereLayer("store").mayOnlyAccessLayers("domain", "problem", "snapshot")
                .whereLayer("audit").mayOnlyAccessLayers("domain", "store")
                .whereLayer("auth").mayOnlyAccessLayers("domain", "problem", "snapshot", "store")
                .whereLayer("governance").mayOnlyAccessLayers("domain", "problem", "snapshot", "catalog", "store", "policy")
                // config: background work lowers its OS priority through config.BackgroundPriority
                .whereLayer("telemetry").mayOnlyAccessLayers("domain", "store", "config")
                .whereLayer("inventory").mayOnlyAccessLayers("domain", "problem", "snapshot", "catalog", "store", "telemetry")
                .whereLayer("nodereport").mayOnlyAccessLayers("domain", "problem", "snapshot", "catalog", "store", "auth",
                        "agent", "telemetry", "inventory", "config")
                .whereLayer("clustersync").mayOnlyAccessLayers("domain", "problem", "snapshot", "catalog", "store", "agent",
                        "nodereport")
                .whereLayer("prometheus").mayOnlyAccessLayers("domain", "snapshot", "store", "agent", "telemetry")
                .whereLayer("tenancy").mayOnlyAccessLayers("domain", "problem", "snapshot", "catalog", "store", "auth")
                .whereLayer("lease").mayOnlyAccessLayers("domain", "problem", "snapshot", "store", "auth")
                .whereLayer("fleet").mayOnlyAccessLayers("domain", "problem", "snapshot", "catalog", "store", "tenancy")
                .whereLayer("profile").mayOnlyAccessLayers("domain", "snapshot", "store", "policy", "governance")
                .whereLayer("request").mayOnlyAccessLayers("domain", "problem", "snapshot", "catalog", "store", "policy",
                        "allocator", "audit", "auth", "governance", "lease", "telemetry")
                .whereLayer("replay").mayOnlyAccessLayers("domain", "snapshot", "allocator")
                .whereLayer("simulation").mayOnlyAccessLayers("domain", "problem", "snapshot", "catalog", "store", "policy",
                        "allocator", "audit", "governance", "fleet", "request", "replay", "accounting", "config")
                .whereLayer("metrics").mayOnlyAccessLayers("domain", "snapshot", "store", "governance", "tenancy", "lease",
                        "request", "telemetry")
                .whereLayer("webhook").mayOnlyAccessLayers("domain", "problem", "snapshot", "store", "auth")
                // accounting reads telemetry: the utilisation report weighs ledger time by the device
                // activity kept in telemetry's own tables (TelemetryHistory.slots), read-only
                .whereLayer("accounting").mayOnlyAccessLayers("domain", "problem", "snapshot", "catalog", "store", "auth", "allocator",
                        "telemetry")
                .whereLayer("api").mayOnlyAccessLayers("domain", "problem", "snapshot", "catalog", "store", "policy", "audit",
                        "auth", "governance", "inventory", "tenancy", "lease", "fleet", "profile", "request", "metrics", "webhook",
                        "agent", "telemetry", "nodereport", "clustersync", "prometheus", "simulation", "accounting")
                .whereLayer("cli").mayOnlyAccessLayers("agent", "catalog", "simulation")
                .whereLayer("application").mayOnlyAccessLayers("replay", "simulation", "cli")
                .whereLayer("api").mayNotBeAccessedByAnyLayer();
    }
}
