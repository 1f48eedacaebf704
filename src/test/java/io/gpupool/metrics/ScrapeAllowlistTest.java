package io.gpupool.metrics;

import io.gpupool.auth.ScrapeAllowlist;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetAddress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScrapeAllowlistTest {
    @ParameterizedTest(name = "{0}: {1} in {2} is {3}")
    @CsvSource(delimiter = '|', textBlock = """
            an address inside an IPv4 block            | 10.1.2.3        | 10.0.0.0/8       | true
            an address outside an IPv4 block           | 11.1.2.3        | 10.0.0.0/8       | false
            a block on a bit boundary inside a byte    | 192.168.1.130   | 192.168.1.128/25 | true
            just below a block on a bit boundary       | 192.168.1.127   | 192.168.1.128/25 | false
            a single address without a prefix          | 127.0.0.1       | 127.0.0.1        | true
            another address than the single one        | 127.0.0.2       | 127.0.0.1        | false
            an IPv4-mapped IPv6 peer in an IPv4 block  | ::ffff:10.0.0.7 | 10.0.0.0/8       | true
            IPv6 loopback in its block                 | ::1             | ::1/128          | true
            an IPv4 address against an IPv6 block      | 10.0.0.1        | ::/0             | false
            any IPv4 address in 0.0.0.0/0              | 8.8.8.8         | 0.0.0.0/0        | true
            """)
    void admitsExactlyTheAddressesOfItsBlocks(String name, String client, String block, boolean admitted) throws Exception {
        assertThat(ScrapeAllowlist.of(block).admits(InetAddress.getByName(client))).isEqualTo(admitted);
    }

    @Test
    void anEmptyAllowlistAdmitsNobody() throws Exception {
        assertThat(ScrapeAllowlist.of().admits(InetAddress.getByName("127.0.0.1"))).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a host name, which would need DNS | prometheus.internal
            a prefix longer than the address  | 10.0.0.0/33
            a prefix that is not a number     | 10.0.0.0/eight
            """)
    void anEntryThatIsNotACidrBlockFailsWithTheSettingsName(String name, String entry) {
        assertThatThrownBy(() -> ScrapeAllowlist.of(entry)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gpupool.metrics.allow-from").hasMessageContaining(entry);
    }
}
