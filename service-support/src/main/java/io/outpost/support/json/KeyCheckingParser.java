package io.outpost.support.json;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;

import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;

/**
 * Sees every key of a document as it is read, and notes each one holding a character the store cannot keep
 * (DESIGN §5: U+0000 anywhere, keys included) — also the keys a binding ignores (unknown properties, whose values
 * are skipped unread), which no check of the bound value could meet. Reading goes on; the caller decides.
 *
 * <p>Every token passes through {@link #nextToken()}: {@link JsonParser}'s own {@code nextFieldName},
 * {@code nextTextValue} and the like call it, and the two shortcuts {@link JsonParserDelegate} hands straight to
 * the parser underneath ({@code nextValue}, {@code skipChildren}) are taken token by token here.
 */
final class KeyCheckingParser extends JsonParserDelegate {

    private final List<Object> base;
    private final List<ErrorDetail> faults = new ArrayList<>();

    KeyCheckingParser(JsonParser parser, List<Object> base) {
        super(parser);
        this.base = base;
    }

    /** The keys refused so far, in document order, each located as {@link ErrorDetail#unstorableKey} does. */
    List<ErrorDetail> faults() {
        return faults;
    }

    @Override
    public JsonToken nextToken() throws IOException {
        JsonToken token = delegate.nextToken();
        if (token == JsonToken.FIELD_NAME && faults.size() < JsonBinding.MAX_FAULTS) {
            String key = delegate.currentName();
            if (!Constraints.storable(key)) {
                faults.add(ErrorDetail.unstorableKey(ErrorDetail.locOf(base, delegate.getParsingContext().getParent()),
                        key));
            }
        }
        return token;
    }

    @Override
    public JsonToken nextValue() throws IOException {
        JsonToken token = nextToken();
        return token == JsonToken.FIELD_NAME ? nextToken() : token;
    }

    @Override
    public JsonParser skipChildren() throws IOException {
        if (!currentToken().isStructStart()) {
            return this;
        }
        int open = 1;
        while (open > 0) {
            JsonToken token = nextToken();
            if (token == null) {
                return this;
            }
            if (token.isStructStart()) {
                open++;
            } else if (token.isStructEnd()) {
                open--;
            }
        }
        return this;
    }

}
