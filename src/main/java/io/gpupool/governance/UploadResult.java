package io.gpupool.governance;

/**
 * A stored version and the validation it passed; {@code layering} shows how a layered upload
 * (one with a policy.yaml) was resolved into the stored set, null for a complete upload.
 */
public record UploadResult(PolicyVersion version, ValidationSummary validation, LayeringSummary layering) {
}
