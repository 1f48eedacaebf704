package io.gpupool.simulation;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.accounting.PriceBook;
import io.gpupool.accounting.PriceChange;
import io.gpupool.problem.ProblemException;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A prices file for an offline replay, in the price book's own format: a JSON array of price changes
 * as {@code POST /api/v1/prices} takes them ({@code model, tier, perGpuHour, borrowedPerGpuHour,
 * reservedIdlePerGpuHour, currency, effectiveFrom, note}); what {@code GET /api/v1/prices} answers is
 * such a file (its other fields are ignored). Each change is checked as the book checks it; a bad one
 * is refused with the file, the line its object starts on and the field.
 */
public final class PriceFile {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PriceFile() {
    }

    public static PriceBook.Prices parse(String file, String text) {
        List<PriceBook.Rate> rates = new ArrayList<>();
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_ARRAY) {
                throw new WorkloadInputException(file, line(p.currentTokenLocation()), null,
                        "is not a JSON array of price changes (as GET /api/v1/prices answers)");
            }
            while (p.nextToken() != JsonToken.END_ARRAY) {
                int line = line(p.currentTokenLocation());
                if (p.currentToken() != JsonToken.START_OBJECT) {
                    throw new WorkloadInputException(file, line, null, "a price change must be a JSON object");
                }
                JsonNode node = p.readValueAsTree();
                rates.add(rate(file, line, node));
            }
        } catch (JsonProcessingException e) {
            throw new WorkloadInputException(file, line(e.getLocation()), null, "is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new WorkloadInputException(file, 0, null, "cannot be read: " + e.getMessage());
        }
        return new PriceBook.Prices(rates);
    }

    private static PriceBook.Rate rate(String file, int line, JsonNode node) {
        PriceChange change = new PriceChange(text(node, "model"), text(node, "tier"),
                number(file, line, node, "perGpuHour"), number(file, line, node, "borrowedPerGpuHour"),
                number(file, line, node, "reservedIdlePerGpuHour"), text(node, "currency"), text(node, "effectiveFrom"),
                text(node, "note"));
        try {
            return PriceBook.checked(change, file, Instant.EPOCH);
        } catch (ProblemException e) {
            String first = e.errors().isEmpty() ? e.getMessage() : e.errors().get(0);
            int colon = first.indexOf(':');
            throw new WorkloadInputException(file, line, colon > 0 ? first.substring(0, colon) : null,
                    colon > 0 ? first.substring(colon + 1).trim() : first);
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static BigDecimal number(String file, int line, JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isNumber()) {
            return v.decimalValue();
        }
        try {
            return new BigDecimal(v.asText().trim());
        } catch (NumberFormatException e) {
            throw new WorkloadInputException(file, line, field, "'" + io.gpupool.problem.FieldChecks.excerpt(v.asText())
                    + "' is not a number");
        }
    }

    private static int line(JsonLocation at) {
        return at == null ? 0 : Math.max(0, at.getLineNr());
    }
}
