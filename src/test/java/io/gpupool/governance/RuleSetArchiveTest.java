package io.gpupool.governance;

import io.gpupool.problem.ProblemException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A rule set uploaded as a zip of its folder: what is kept, what is stripped, what is refused. */
class RuleSetArchiveTest {
    private static final String RULE = "package rules.tiering;\nrule \"Any GPU is elastic\" when then end\n";

    private static byte[] zip(Map<String, String> entries) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(bytes, StandardCharsets.UTF_8)) {
            for (Map.Entry<String, String> e : entries.entrySet()) {
                out.putNextEntry(new ZipEntry(e.getKey()));
                if (e.getValue() != null) {
                    out.write(e.getValue().getBytes(StandardCharsets.UTF_8));
                }
                out.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    private static Map<String, String> read(Map<String, String> entries) throws IOException {
        return RuleSetArchive.read(new ByteArrayInputStream(zip(entries)));
    }

    private static Map<String, String> files(String... pathsAndTexts) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pathsAndTexts.length; i += 2) {
            m.put(pathsAndTexts[i], pathsAndTexts[i + 1]);
        }
        return m;
    }

    @Test
    void theFolderTheSetWasZippedFromIsStrippedSoPathsAreThoseOfTheSet() throws IOException {
        Map<String, String> set = read(files("my-policy/", null, "my-policy/tiering/tiers.drl", RULE,
                "my-policy/tests/tiering-any.yaml", "given: {}", "my-policy/policy.yaml", "extends: default"));

        assertThat(set).containsOnlyKeys("tiering/tiers.drl", "tests/tiering-any.yaml", "policy.yaml");
        assertThat(set.get("tiering/tiers.drl")).isEqualTo(RULE);
    }

    @Test
    void filesZippedFromInsideTheSetKeepTheirPaths() throws IOException {
        assertThat(read(files("tiering/tiers.drl", RULE, "admission/admit.drl", RULE, "policy.yaml", "extends: default")))
                .containsOnlyKeys("tiering/tiers.drl", "admission/admit.drl", "policy.yaml");
    }

    @Test
    void entriesStoredWithALeadingSlashAreReadRelativeToTheSet() throws IOException {
        assertThat(read(files("/tiering/tiers.drl", RULE, "/policy.yaml", "extends: default")))
                .containsOnlyKeys("tiering/tiers.drl", "policy.yaml");
    }

    @Test
    void aSetOfScenarioTestsAloneKeepsItsTestsFolder() throws IOException {
        assertThat(read(files("tests/a.yaml", "given: {}", "tests/b.yml", "given: {}")))
                .containsOnlyKeys("tests/a.yaml", "tests/b.yml");
    }

    @Test
    void onlyRuleFilesScenarioTestsAndTheManifestAreKept() throws IOException {
        Map<String, String> set = read(files("p/rules.drl", RULE, "p/README.md", "# notes", "p/notes.yaml", "x: 1",
                "p/tests/ok.yaml", "given: {}", "p/.DS_Store", "junk"));

        assertThat(set).containsOnlyKeys("rules.drl", "tests/ok.yaml");
    }

    @Test
    void windowsSeparatorsAreReadAsSlashes() throws IOException {
        assertThat(read(files("tiering\\tiers.drl", RULE, "policy.yaml", "extends: default")))
                .containsOnlyKeys("tiering/tiers.drl", "policy.yaml");
    }

    @Test
    void anEntryThatClimbsOutOfItsFolderIsRefused() {
        assertThatThrownBy(() -> read(files("p/../../etc/rules.drl", RULE)))
                .isInstanceOf(ProblemException.class)
                .hasMessage("Archive entry 'p/../../etc/rules.drl' escapes its folder");
    }

    @Test
    void anArchiveWithoutRuleFilesIsRefused() {
        assertThatThrownBy(() -> read(files("p/README.md", "# notes")))
                .isInstanceOf(ProblemException.class)
                .hasMessage("The archive holds no .drl, tests/*.yaml or policy.yaml file");
    }

    @Test
    void anArchiveWhoseCompressedDataIsDamagedIsRefusedAsUnreadable() throws IOException {
        byte[] damaged = zip(files("a.drl", RULE + RULE));
        for (int i = 40; i < 50; i++) {
            damaged[i] = (byte) 0xFF; // inside the deflated data of the first entry
        }

        assertThatThrownBy(() -> RuleSetArchive.read(new ByteArrayInputStream(damaged)))
                .isInstanceOf(ProblemException.class)
                .hasMessageStartingWith("Not a readable zip archive: ");
    }

    @Test
    void anArchiveOfExactlyTheEntryLimitIsReadAndOneMoreIsRefused() throws IOException {
        Map<String, String> atLimit = new LinkedHashMap<>();
        for (int i = 0; i < RuleSetArchive.MAX_ENTRIES; i++) {
            atLimit.put("r" + i + ".drl", "");
        }
        assertThat(read(atLimit)).hasSize(RuleSetArchive.MAX_ENTRIES);

        atLimit.put("one-more/", null); // a folder entry counts too
        assertThatThrownBy(() -> read(atLimit))
                .isInstanceOf(ProblemException.class)
                .hasMessage("The archive has more than 1000 entries");
    }

    @Test
    void anArchiveExpandingToExactlyTheByteLimitIsReadAndOneByteMoreIsRefused() throws IOException {
        String half = "x".repeat((int) (RuleSetArchive.MAX_BYTES / 2));
        assertThat(read(files("a.drl", half, "b.drl", half))).hasSize(2);

        assertThatThrownBy(() -> read(files("a.drl", half, "b.drl", half, "c.drl", "y")))
                .isInstanceOf(ProblemException.class)
                .hasMessage("The archive expands to more than 10485760 bytes");
    }
}
