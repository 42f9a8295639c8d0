package io.outpost.messaging;

import java.util.List;

import io.outpost.model.error.ErrorDetail;

/** The faults of a parsed event, given its record key; empty when it may be stored. */
@FunctionalInterface
public interface EventValidator<E> {

    List<ErrorDetail> validate(String key, E event);
}
