package io.gpupool.governance;

import io.gpupool.policy.ruleset.PolicyManifest;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.problem.ProblemException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Reads a rule set from a zip of its folder. Bounded against zip bombs (entry count and total
 * uncompressed size); a single top-level folder is stripped so "zip -r policy.zip my-policy/" works.
 */
public final class RuleSetArchive {
    static final int MAX_ENTRIES = 1000;
    static final long MAX_BYTES = 10L * 1024 * 1024;

    private RuleSetArchive() {
    }

    public static Map<String, String> read(InputStream zip) throws IOException {
        Map<String, String> files = new TreeMap<>();
        long total = 0;
        int entries = 0;
        try (ZipInputStream in = new ZipInputStream(zip, StandardCharsets.UTF_8)) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                if (++entries > MAX_ENTRIES) {
                    throw ProblemException.invalid("The archive has more than " + MAX_ENTRIES + " entries");
                }
                if (e.isDirectory()) {
                    continue;
                }
                byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE, MAX_BYTES - total + 1));
                total += bytes.length;
                if (total > MAX_BYTES) {
                    throw ProblemException.invalid("The archive expands to more than " + MAX_BYTES + " bytes");
                }
                String path = e.getName().replace('\\', '/');
                if (path.contains("..")) {
                    throw ProblemException.invalid("Archive entry '" + path + "' escapes its folder");
                }
                files.put(path, new String(bytes, StandardCharsets.UTF_8));
            }
        } catch (java.util.zip.ZipException e) {
            throw ProblemException.invalid("Not a readable zip archive: " + e.getMessage());
        }
        return ruleFilesOnly(stripCommonFolder(files));
    }

    private static Map<String, String> stripCommonFolder(Map<String, String> files) {
        String prefix = null;
        for (String path : files.keySet()) {
            int slash = path.indexOf('/');
            String top = slash < 0 ? "" : path.substring(0, slash + 1);
            if (prefix == null) {
                prefix = top;
            } else if (!prefix.equals(top)) {
                return files;
            }
        }
        if (prefix == null || prefix.isEmpty() || prefix.equals("tests/")) {
            return files;
        }
        Map<String, String> stripped = new TreeMap<>();
        String p = prefix;
        files.forEach((path, text) -> stripped.put(path.substring(p.length()), text));
        return stripped;
    }

    private static Map<String, String> ruleFilesOnly(Map<String, String> files) {
        Map<String, String> kept = new TreeMap<>();
        files.forEach((path, text) -> {
            if (RuleSet.isRuleFile(path) || RuleSet.isTestFile(path) || PolicyManifest.FILE.equals(path)) {
                kept.put(path, text);
            }
        });
        if (kept.isEmpty()) {
            throw ProblemException.invalid("The archive holds no .drl, tests/*.yaml or " + PolicyManifest.FILE + " file");
        }
        return kept;
    }
}
