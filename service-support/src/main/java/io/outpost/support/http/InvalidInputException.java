package io.outpost.support.http;

import java.util.List;

import io.outpost.model.error.ErrorDetail;

/** Bad input, answered 422 with one {@link ErrorDetail} per faulty input (DESIGN §5). */
public class InvalidInputException extends RuntimeException {

    private final List<ErrorDetail> details;

    public InvalidInputException(List<ErrorDetail> details) {
        super(details.isEmpty() ? "invalid input" : details.get(0).describe(), null, false, false);
        this.details = List.copyOf(details);
    }

    public InvalidInputException(ErrorDetail detail) {
        this(List.of(detail));
    }

    public List<ErrorDetail> details() {
        return details;
    }
}
