package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.problem.ProblemException;
import io.gpupool.webhook.DeliveryView;
import io.gpupool.webhook.WebhookSecret;
import io.gpupool.webhook.WebhookView;
import io.gpupool.webhook.Webhooks;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.swagger.v3.oas.annotations.Parameter;

import java.util.List;

/**
 * A tenant's webhooks (docs/api.md, "Webhooks"): register one (the signing secret is answered
 * once), list, read, rotate the secret, delete; read its delivery log and send a delivery again.
 */
@Controller("/api/v1/webhooks")
public class WebhookController {
    private final Webhooks webhooks;

    WebhookController(Webhooks webhooks) {
        this.webhooks = webhooks;
    }

    /** @param events any of notice, preempted, reclaimed, expired, placed */
    public record NewWebhook(String tenant, String url, List<String> events, @Nullable String description) {
    }

    @Post
    @Allow({Role.ADMIN, Role.TENANT})
    public HttpResponse<WebhookSecret> create(@Nullable @Body NewWebhook body, @Parameter(hidden = true) Caller caller) {
        if (body == null) {
            throw ProblemException.invalid("A webhook body is required: {tenant, url, events, description?}");
        }
        return HttpResponse.created(webhooks.create(body.tenant(), body.url(), body.events(), body.description(), caller));
    }

    @Get
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public List<WebhookView> list(@Nullable @QueryValue String tenant, @Parameter(hidden = true) Caller caller) {
        return webhooks.list(tenant, caller);
    }

    @Get("/{id}")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public WebhookView get(@PathVariable String id, @Parameter(hidden = true) Caller caller) {
        return webhooks.get(id, caller);
    }

    @Delete("/{id}")
    @Allow({Role.ADMIN, Role.TENANT})
    public WebhookView delete(@PathVariable String id, @Parameter(hidden = true) Caller caller) {
        return webhooks.delete(id, caller);
    }

    /** A new signing secret, answered once; the old one stops signing at once. */
    @Post("/{id}/secret")
    @Allow({Role.ADMIN, Role.TENANT})
    public WebhookSecret rotateSecret(@PathVariable String id, @Parameter(hidden = true) Caller caller) {
        return webhooks.rotateSecret(id, caller);
    }

    /** @param state pending, delivered or dead; all when absent */
    @Get("/{id}/deliveries")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public List<DeliveryView> deliveries(@PathVariable String id, @Nullable @QueryValue String state,
                                         @Nullable @QueryValue Integer limit, @Parameter(hidden = true) Caller caller) {
        return webhooks.deliveries(id, state, limit == null ? 50 : limit, caller);
    }

    @Get("/{id}/deliveries/{deliveryId}")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public DeliveryView delivery(@PathVariable String id, @PathVariable String deliveryId,
                                 @Parameter(hidden = true) Caller caller) {
        return webhooks.delivery(id, deliveryId, caller);
    }

    /** Sends a delivery again, whatever became of it, as a new series of attempts. */
    @Post("/{id}/deliveries/{deliveryId}/redeliver")
    @Allow({Role.ADMIN, Role.TENANT})
    public HttpResponse<DeliveryView> redeliver(@PathVariable String id, @PathVariable String deliveryId,
                                                @Parameter(hidden = true) Caller caller) {
        return HttpResponse.accepted().body(webhooks.redeliver(id, deliveryId, caller));
    }
}
