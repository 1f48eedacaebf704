package io.gpupool.allocator;

/**
 * The checks a node goes through, in the order "does not fit" reasons attribute eliminations: a
 * node is counted under the first constraint it fails.
 */
public enum Constraint {
    POOL("no GPU in an allowed pool"),
    HEALTH("no schedulable GPU of the right kind (MIG or not)"),
    MODEL("no GPU of an allowed model"),
    LABEL("no GPU with the required profile labels"),
    GPU_MEMORY("no GPU with enough memory"),
    GPU_CAPACITY("not enough free GPU capacity"),
    CPU("not enough free CPU"),
    MEMORY("not enough free memory"),
    TOPOLOGY("could host a member, but not with the required topology or the whole gang");

    private final String meaning;

    Constraint(String meaning) {
        this.meaning = meaning;
    }

    public String meaning() {
        return meaning;
    }
}
