package io.gpupool.store;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * The lifecycle of the writer tests around one {@link WriterHarness} per class: a fresh working
 * set and thread pool for each test. A subclass's own {@code @BeforeAll} and {@code @BeforeEach}
 * run after these, so they can seed data or take fields from the harness.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WriterHarnessTest {
    WriterHarness harness;

    @BeforeAll
    void startHarness() {
        harness = new WriterHarness();
    }

    @BeforeEach
    void freshWriter() {
        harness.freshWriter();
    }

    @AfterEach
    void stopThreads() {
        harness.stopThreads();
    }

    @AfterAll
    void closeHarness() {
        harness.close();
    }
}
