package io.gpupool.governance;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.multipart.MultipartBody;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** Uploading a zipped policy folder: the shipped (layered) tiered-enterprise example becomes version 2. */
@MicronautTest(transactional = false)
@DatabaseTest
class PolicyArchiveUploadApiTest {
    @Inject
    @Client("/")
    HttpClient client;

    private static byte[] zip(Path folder, String prefix) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(bytes); Stream<Path> files = Files.walk(folder)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new ZipEntry(prefix + folder.relativize(f).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    private Reply upload(byte[] archive, String message) {
        MultipartBody body = MultipartBody.builder()
                .addPart("archive", "policy.zip", MediaType.of("application/zip"), archive)
                .addPart("message", message).build();
        return new Api(client).send(HttpRequest.POST("/api/v1/policies", body)
                .contentType(MediaType.MULTIPART_FORM_DATA_TYPE), ADMIN);
    }

    @Test
    void aZippedExamplePolicyFolderIsValidatedAndStored() throws IOException {
        Reply reply = upload(zip(Path.of("policies-examples/tiered-enterprise"), "tiered-enterprise/"),
                "Tiered enterprise policy");

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        assertThat(reply.body().at("/version/label").asText()).isEqualTo("v2");
        assertThat(reply.body().at("/validation/valid").asBoolean()).isTrue();
        assertThat(reply.body().at("/validation/coverage/neverFired").size()).isZero();
        assertThat(reply.body().at("/layering/base").asText()).as("the folder is layered over the default set")
                .isEqualTo("default");
        assertThat(reply.body().at("/layering/files").findValuesAsText("origin")).contains("REPLACED", "INHERITED");
    }

    @Test
    void somethingThatIsNotAZipIsABadRequest() {
        Reply reply = upload("not a zip at all".getBytes(StandardCharsets.UTF_8), "junk");

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.detail()).contains("no .drl");
    }
}
