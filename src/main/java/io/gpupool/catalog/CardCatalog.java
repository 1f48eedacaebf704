package io.gpupool.catalog;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves the model names real sources report to a {@link CardModel}, from the catalog file
 * ({@code catalog/gpu-models.yaml}). The name is split into words at anything but letters and
 * digits; vendor and product-line words (NVIDIA, Tesla, Quadro, RTX, GeForce) are dropped; the
 * first word that names a family decides it ({@code L40S}, {@code L40} and {@code L4} are different
 * words, so none is taken for another). A word {@code SXM…}, {@code PCIE} or {@code NVL} names the
 * variant, and a number with or without G, GB or GIB the memory in GiB (a number of 1,000 or more
 * is read as MiB). What the name does not say comes from the catalog entry. Thread-safe; resolutions
 * are kept, since a fleet has few distinct names.
 */
public final class CardCatalog {
    private static final Set<String> NOISE = Set.of("NVIDIA", "TESLA", "QUADRO", "RTX", "GEFORCE", "GRAPHICS");
    private static final Pattern WORD = Pattern.compile("[A-Z0-9]+");
    private static final Pattern MEMORY = Pattern.compile("(\\d{1,5})(G|GB|GIB)?");
    private static final CardCatalog STANDARD = load("/catalog/gpu-models.yaml");

    private final Map<String, Family> families;
    private final Map<String, CardModel> resolved = new ConcurrentHashMap<>();

    /** One catalog entry: a family and what its cards have unless their name says otherwise. */
    public record Family(String family, String vendor, String architecture, int memoryGib, String variant,
                         boolean mig, int nvlinkGeneration) {
    }

    private record File(List<Family> families) {
    }

    CardCatalog(List<Family> entries) {
        Map<String, Family> byName = new HashMap<>();
        for (Family f : entries) {
            if (f.family() == null || byName.put(f.family().toUpperCase(Locale.ROOT), f) != null) {
                throw new IllegalArgumentException("catalog: a family must be named once, was " + f.family());
            }
        }
        this.families = Map.copyOf(byName);
    }

    /** The catalog shipped with gpupool. */
    public static CardCatalog standard() {
        return STANDARD;
    }

    static CardCatalog load(String resource) {
        try (InputStream in = CardCatalog.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("catalog resource missing: " + resource);
            }
            return new CardCatalog(new ObjectMapper(new YAMLFactory()).readValue(in, File.class).families());
        } catch (IOException e) {
            throw new UncheckedIOException("catalog " + resource + " is not valid YAML", e);
        }
    }

    public CardModel resolve(String name) {
        return name == null ? CardModel.unknown(null) : resolved.computeIfAbsent(name, this::resolveNow);
    }

    private CardModel resolveNow(String name) {
        List<String> words = new ArrayList<>();
        Matcher m = WORD.matcher(name.toUpperCase(Locale.ROOT));
        while (m.find()) {
            if (!NOISE.contains(m.group())) {
                words.add(m.group());
            }
        }
        Family family = null;
        int at = -1;
        for (int i = 0; i < words.size() && family == null; i++) {
            family = families.get(words.get(i));
            at = i;
        }
        if (family == null) {
            return CardModel.unknown(name);
        }
        String variant = family.variant();
        Integer memory = null;
        for (String word : words.subList(at + 1, words.size())) {
            if (word.startsWith("SXM")) {
                variant = "SXM";
            } else if (word.equals("PCIE")) {
                variant = "PCIe";
            } else if (word.equals("NVL")) {
                variant = "NVL";
            } else if (memory == null) {
                Matcher mem = MEMORY.matcher(word);
                if (mem.matches()) {
                    int n = Integer.parseInt(mem.group(1));
                    memory = n >= 1000 ? n / 1024 : n;
                }
            }
        }
        return new CardModel(name, true, family.vendor(), family.family(), variant,
                memory != null ? memory : family.memoryGib(), family.architecture(), family.mig(),
                family.nvlinkGeneration());
    }
}
