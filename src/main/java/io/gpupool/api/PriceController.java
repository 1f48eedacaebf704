package io.gpupool.api;

import io.gpupool.accounting.PriceBook;
import io.gpupool.accounting.PriceChange;
import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.swagger.v3.oas.annotations.Parameter;

import java.util.List;

/** The price book: every change ever made, oldest first; an admin adds one (201) that applies from its hour on. */
@Controller("/api/v1/prices")
public class PriceController {
    private final PriceBook book;

    PriceController(PriceBook book) {
        this.book = book;
    }

    @Get
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public List<PriceBook.Rate> list() {
        return book.all();
    }

    @Post
    @Allow(Role.ADMIN)
    public HttpResponse<PriceBook.Rate> change(@Nullable @Body PriceChange change, @Parameter(hidden = true) Caller caller) {
        return HttpResponse.created(book.change(change, caller));
    }
}
