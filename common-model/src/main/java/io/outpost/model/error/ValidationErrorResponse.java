package io.outpost.model.error;

import java.util.List;

/** Body of every 422 answer: {@code {"detail":[{"loc":[...],"msg":"...","type":"..."}]}}. */
public record ValidationErrorResponse(List<ErrorDetail> detail) {

    public ValidationErrorResponse {
        detail = List.copyOf(detail);
    }
}
