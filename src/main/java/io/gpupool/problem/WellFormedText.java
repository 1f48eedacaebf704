package io.gpupool.problem;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.KeyDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.module.SimpleModule;

import java.io.IOException;

/**
 * Every string the JSON bodies carry, values and map keys, is well-formed Unicode: a lone surrogate
 * (a backslash-u escape of D800-DFFF without its pair) is refused (400) while the body is read, so no service, row or later answer
 * ever holds one. Registered once, for all body types (api.JsonContract), and by the fleet parser.
 */
public final class WellFormedText extends SimpleModule {
    public WellFormedText() {
        super("gpupool-well-formed-text");
        addDeserializer(String.class, new Strings());
        addKeyDeserializer(String.class, new Keys());
    }

    private static String checked(JsonParser p, String text) throws IOException {
        if (text != null && !FieldChecks.wellFormed(text)) {
            throw InvalidFormatException.from(p, "not well-formed Unicode: a lone surrogate (\\ud800-\\udfff) has no UTF-8 form",
                    FieldChecks.excerpt(text), String.class);
        }
        return text;
    }

    private static final class Strings extends StdScalarDeserializer<String> {
        Strings() {
            super(String.class);
        }

        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            return checked(p, StringDeserializer.instance.deserialize(p, ctxt));
        }
    }

    private static final class Keys extends KeyDeserializer {
        @Override
        public Object deserializeKey(String key, DeserializationContext ctxt) throws IOException {
            return checked(ctxt.getParser(), key);
        }
    }
}
