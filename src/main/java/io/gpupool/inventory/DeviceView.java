package io.gpupool.inventory;

import io.gpupool.domain.inventory.Device;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

/** A device as the API shows it: its inventory record plus how much of it leases hold right now. */
public record DeviceView(@JsonUnwrapped Device device, int allocatedMilli, int freeMilli) {
}
