package io.gpupool.governance;

/** A stored version and the validation it passed. */
public record UploadResult(PolicyVersion version, ValidationSummary validation) {
}
