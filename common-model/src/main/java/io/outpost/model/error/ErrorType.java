package io.outpost.model.error;

/** The one vocabulary of {@link ErrorDetail#type()} used by every service (DESIGN §5). */
public enum ErrorType {
    MISSING("missing"),
    INT_PARSING("int_parsing"),
    GREATER_THAN_EQUAL("greater_than_equal"),
    LESS_THAN_EQUAL("less_than_equal"),
    STRING_TOO_SHORT("string_too_short"),
    STRING_TOO_LONG("string_too_long"),
    UUID_PARSING("uuid_parsing"),
    ENUM("enum"),
    LITERAL_ERROR("literal_error"),
    JSON_INVALID("json_invalid"),
    TOO_SHORT("too_short"),
    TOO_LONG("too_long"),
    VALUE_ERROR("value_error"),
    STRING_PATTERN_MISMATCH("string_pattern_mismatch"),
    DATETIME_PARSING("datetime_parsing");

    private final String code;

    ErrorType(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}
