package io.outpost.model.error;

import static io.outpost.model.TestJson.assertSerializesTo;
import static io.outpost.model.TestJson.read;
import static io.outpost.model.TestJson.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/** JSON of ErrorDetail, ValidationErrorResponse, AuthErrorResponse, OAuthErrorResponse and ErrorResponse. */
class ErrorBodiesJsonTest {

    @Test
    void writesErrorDetailWithLocMsgType() {
        ErrorDetail detail = ErrorDetail.stringTooLong(ErrorDetail.loc("body", "notifications", 3, "message"), 4096);

        assertSerializesTo(detail, """
                {"loc":["body","notifications",3,"message"],
                 "msg":"String should have at most 4096 characters","type":"string_too_long"}""");
    }

    @Test
    void roundTripsErrorDetailWithIntegerIndexInLoc() {
        ErrorDetail detail = ErrorDetail.missing(ErrorDetail.loc("body", "notifications", 0, "message"));

        ErrorDetail back = roundTrip(detail);

        assertThat(back).isEqualTo(detail);
        assertThat(back.loc().get(2)).isEqualTo(0);
    }

    @Test
    void writesValidationErrorBodyAsDetailArray() {
        ValidationErrorResponse body = new ValidationErrorResponse(List.of(
                ErrorDetail.missing(ErrorDetail.loc("body", "grant_type")),
                ErrorDetail.lessThanEqual(ErrorDetail.loc("query", "deadline"), 900)));

        assertSerializesTo(body, """
                {"detail":[
                  {"loc":["body","grant_type"],"msg":"Field required","type":"missing"},
                  {"loc":["query","deadline"],"msg":"Input should be less than or equal to 900",
                   "type":"less_than_equal"}]}""");
    }

    @Test
    void roundTripsValidationErrorBody() {
        ValidationErrorResponse body = new ValidationErrorResponse(List.of(
                ErrorDetail.literal(ErrorDetail.loc("body", "grant_type"), "client_credentials"),
                ErrorDetail.uuidParsing(ErrorDetail.loc("path", "sandbox_id"))));

        assertThat(roundTrip(body)).isEqualTo(body);
    }

    @Test
    void writesAuthErrorWithAuthSuccessFalse() {
        AuthErrorResponse body = AuthErrorResponse.of(AuthErrorCode.TOKEN_EXPIRED, "Token expired");

        assertSerializesTo(body, """
                {"auth_success":false,"error_code":"auth_token_expired","desc":"Token expired"}""");
        assertThat(roundTrip(body)).isEqualTo(body);
    }

    @Test
    void readsAuthErrorFromGameSdkShape() {
        AuthErrorResponse body = read("""
                {"auth_success":false,"error_code":"insufficient_permissions","desc":"no"}""",
                AuthErrorResponse.class);

        assertThat(body).isEqualTo(AuthErrorResponse.of(AuthErrorCode.INSUFFICIENT_PERMISSIONS, "no"));
    }

    @Test
    void writesOAuthErrorInBothVocabularies() {
        OAuthErrorResponse body = OAuthErrorResponse.invalidClient("Client authentication failed");

        assertSerializesTo(body, """
                {"error":"invalid_client","error_description":"Client authentication failed",
                 "auth_success":false,"error_code":"auth_invalid_client","desc":"Client authentication failed"}""");
        assertThat(roundTrip(body)).isEqualTo(body);
    }

    @Test
    void writesErrorResponseWithErrorCodeAndDescOnly() {
        ErrorResponse body = new ErrorResponse(ErrorResponse.TOO_MANY_LISTENING, "Too many polls");

        assertSerializesTo(body, """
                {"error_code":"too_many_listening_to_single_client","desc":"Too many polls"}""");
        assertThat(roundTrip(body)).isEqualTo(body);
    }

    @Test
    void errorResponseCodesMatchDesign() {
        assertThat(ErrorResponse.TOO_MANY_LISTENING).isEqualTo("too_many_listening_to_single_client");
        assertThat(ErrorResponse.CONNECTION_LIMIT_REACHED).isEqualTo("connection_limit_reached");
    }

    @Test
    void authErrorCodesMatchDesignVocabulary() {
        assertThat(List.of(AuthErrorCode.values())).extracting(AuthErrorCode::code).containsExactly(
                "auth_malformed_access", "auth_not_jwt", "auth_token_format", "auth_token_expired",
                "auth_token_sig_invalid", "auth_invalid_key_id", "auth_token_invalid_claim",
                "auth_token_invalid_type", "auth_token_unknown", "insufficient_permissions",
                "invalid_token_claims", "auth_invalid_client");
    }
}
