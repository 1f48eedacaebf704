package io.gpupool.auth;

import io.micronaut.context.annotation.Property;
import jakarta.inject.Singleton;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The client addresses that may scrape {@code /metrics} without a token
 * ({@code gpupool.metrics.allow-from}: a list of CIDR blocks or single addresses, IPv4 or IPv6).
 * Matched against the connection's peer address only, never a forwarded-for header (a client could
 * write that itself). An entry that is not an address literal fails startup: no DNS lookups here.
 */
@Singleton
public class ScrapeAllowlist {
    private final List<Block> blocks;

    ScrapeAllowlist(@Property(name = "gpupool.metrics.allow-from", defaultValue = "") List<String> entries) {
        List<Block> parsed = new ArrayList<>();
        for (String entry : entries == null ? List.<String>of() : entries) {
            if (entry != null && !entry.isBlank()) {
                parsed.add(Block.parse(entry.trim()));
            }
        }
        this.blocks = List.copyOf(parsed);
    }

    public static ScrapeAllowlist of(String... entries) {
        return new ScrapeAllowlist(List.of(entries));
    }

    public boolean admits(InetAddress client) {
        if (client == null) {
            return false;
        }
        byte[] address = normalised(client.getAddress());
        return blocks.stream().anyMatch(b -> b.contains(address));
    }

    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    /** An IPv4-mapped IPv6 address (::ffff:a.b.c.d, as dual-stack sockets report IPv4 peers) as its IPv4 bytes. */
    private static byte[] normalised(byte[] address) {
        if (address.length != 16) {
            return address;
        }
        for (int i = 0; i < 10; i++) {
            if (address[i] != 0) {
                return address;
            }
        }
        if (address[10] != (byte) 0xff || address[11] != (byte) 0xff) {
            return address;
        }
        return new byte[]{address[12], address[13], address[14], address[15]};
    }

    private record Block(byte[] network, int prefix) {
        static Block parse(String entry) {
            int slash = entry.indexOf('/');
            String host = slash < 0 ? entry : entry.substring(0, slash);
            if (host.isEmpty() || !host.toLowerCase(Locale.ROOT).matches("[0-9a-f:.]+") || !host.matches(".*[.:].*")) {
                throw invalid(entry, "not an IP address literal");
            }
            byte[] network;
            try {
                network = normalised(InetAddress.getByName(host).getAddress());
            } catch (UnknownHostException e) {
                throw invalid(entry, "not an IP address literal");
            }
            int bits = network.length * 8;
            int prefix;
            try {
                prefix = slash < 0 ? bits : Integer.parseInt(entry.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw invalid(entry, "the prefix length is not a number");
            }
            if (prefix < 0 || prefix > bits) {
                throw invalid(entry, "the prefix length must be 0.." + bits);
            }
            return new Block(network, prefix);
        }

        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int full = prefix / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (address[full] & mask) == (network[full] & mask);
        }

        private static IllegalArgumentException invalid(String entry, String why) {
            return new IllegalArgumentException("gpupool.metrics.allow-from: '" + entry + "' is " + why
                    + "; write a CIDR block such as 10.0.0.0/8 or an address such as 127.0.0.1");
        }
    }
}
