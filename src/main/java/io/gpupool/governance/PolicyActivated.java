package io.gpupool.governance;

/**
 * Published once a policy version becomes the one enforcement uses: at startup when the stored
 * active version has compiled, and after each activation or rollback has committed. Whatever is
 * derived from the active policy (device profiles) listens to this. Published on the activating
 * thread: listeners must only hand work on.
 */
public record PolicyActivated(ActivePolicy.Active active) {
}
