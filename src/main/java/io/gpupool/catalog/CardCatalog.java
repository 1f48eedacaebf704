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
    private static volatile CardCatalog active = STANDARD;

    private final Map<String, Family> families;
    private static final int MAX_REMEMBERED = 4096;
    private final Map<String, CardModel> resolved = new ConcurrentHashMap<>();

    /**
     * One catalog entry: a family and what its cards have unless their name says otherwise.
     * {@code aliases} are further words that name the family in what a source reports (a board
     * code such as {@code PG506} for an A100, say); usually none.
     */
    public record Family(String family, String vendor, String architecture, int memoryGib, String variant,
                         boolean mig, int nvlinkGeneration, List<String> aliases) {
        public Family {
            aliases = aliases == null ? List.of() : List.copyOf(aliases);
        }
    }

    private record File(List<Family> families) {
    }

    private final List<Family> entries;

    CardCatalog(List<Family> entries) {
        Map<String, Family> byName = new HashMap<>();
        for (Family f : entries) {
            if (f.family() == null || f.family().isBlank() || !WORD.matcher(f.family().toUpperCase(Locale.ROOT)).matches()) {
                throw new IllegalArgumentException("catalog: a family is one word of letters and digits, was '"
                        + f.family() + "'");
            }
            if (byName.put(f.family().toUpperCase(Locale.ROOT), f) != null) {
                throw new IllegalArgumentException("catalog: family " + f.family() + " is named twice");
            }
        }
        for (Family f : entries) {
            for (String alias : f.aliases()) {
                String word = alias == null ? "" : alias.toUpperCase(Locale.ROOT);
                if (!WORD.matcher(word).matches()) {
                    throw new IllegalArgumentException("catalog: alias '" + alias + "' of " + f.family()
                            + " is not one word of letters and digits");
                }
                Family other = byName.putIfAbsent(word, f);
                if (other != null && other != f) {
                    throw new IllegalArgumentException("catalog: alias " + alias + " of " + f.family()
                            + " already names " + other.family());
                }
            }
        }
        this.families = Map.copyOf(byName);
        this.entries = List.copyOf(entries);
    }

    /** The catalog shipped with gpupool. */
    public static CardCatalog standard() {
        return STANDARD;
    }

    /**
     * The catalog in use: the shipped one, or the shipped one extended by the admins' file
     * ({@code gpupool.catalog.file}), installed once at startup.
     */
    public static CardCatalog active() {
        return active;
    }

    /** Installs the catalog devices are resolved with from now on (startup, and tests). */
    public static void use(CardCatalog catalog) {
        active = java.util.Objects.requireNonNull(catalog);
    }

    /** Every family, in the catalog's order (the shipped entries first, then those a file added). */
    public List<Family> families() {
        return entries;
    }

    /**
     * This catalog with {@code extra}'s families: one with the name of an existing family replaces
     * it (its aliases too), the others are added.
     */
    public CardCatalog extendedWith(List<Family> extra) {
        Map<String, Family> merged = new java.util.LinkedHashMap<>();
        for (Family f : entries) {
            merged.put(f.family().toUpperCase(Locale.ROOT), f);
        }
        for (Family f : extra) {
            merged.put(f.family() == null ? "" : f.family().toUpperCase(Locale.ROOT), f);
        }
        return new CardCatalog(List.copyOf(merged.values()));
    }

    /** Reads a catalog file's families ({@code families:} as in the shipped file). */
    public static List<Family> read(java.nio.file.Path file) {
        try (InputStream in = java.nio.file.Files.newInputStream(file)) {
            File parsed = new ObjectMapper(new YAMLFactory()).readValue(in, File.class);
            if (parsed == null || parsed.families() == null) {
                throw new IllegalArgumentException("catalog file " + file + " has no 'families:' list");
            }
            return parsed.families();
        } catch (IOException e) {
            throw new IllegalArgumentException("catalog file " + file + " cannot be read: " + e.getMessage(), e);
        }
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
        if (name == null) {
            return CardModel.unknown(null);
        }
        CardModel known = resolved.get(name);
        if (known != null) {
            return known;
        }
        // Names come from tenants' requests too: past a bound, resolve without remembering, so
        // arbitrary strings cannot grow the cache without limit.
        return resolved.size() < MAX_REMEMBERED ? resolved.computeIfAbsent(name, this::resolveNow) : resolveNow(name);
    }

    /**
     * The name the pool keeps for a model named {@code name} by any source: the catalog's canonical
     * name ({@code T4-PCIE-16G} for "T4-16G", "Tesla T4" or "NVIDIA-Tesla-T4"), so a fleet file, a node
     * agent, a cluster import, a request, a quota and a price all speak of one model by one name.
     * A name the catalog cannot resolve, {@code *} (any model) and null are kept as they are.
     */
    public String canonicalName(String name) {
        if (name == null || name.isBlank() || "*".equals(name)) {
            return name;
        }
        return resolve(name).canonicalName();
    }

    /** {@link #canonicalName(String)} with the catalog in use. */
    public static String canonical(String name) {
        return active().canonicalName(name);
    }

    /** Every name of {@code names} as {@link #canonical(String)} gives it, in order (null stays null). */
    public static List<String> canonical(List<String> names) {
        if (names == null) {
            return null;
        }
        List<String> out = new ArrayList<>(names.size());
        for (String name : names) {
            out.add(canonical(name));
        }
        return java.util.Collections.unmodifiableList(out);
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
