package io.outpost.support.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** The hand matcher of resource paths answers as the regular expression it replaced. */
class AllowHeadersTest {

    private static final List<String> TEMPLATES = List.of("/", "/probe", "/probe/{sandbox_id}", "/probe/query",
            "/v1/history/{sandbox_id}/{resource_type}", "/a/{id}/b", "a//b/", "/x{id}", "/{path: .+/.+}", "/a.b/(c)");
    private static final List<String> PATHS = List.of("/", "", "//", "/probe", "/probe/", "//probe", "/probe/x",
            "/probe/query", "/probe/query/x", "/probe//", "/probe/x/", "/PROBE", "/probex", "/probe/x y",
            "/v1/history/s/role", "/v1/history//role", "/v1/history/s/role/more", "/a/1/b", "/a//b", "/a/1/b/c",
            "/a/b", "/x{id}", "/xid", "/p/q", "/a.b/(c)", "/aXb/(c)", "/.+/.+}", "/q/.+}", "probe");

    /** The matcher before: {@code /a/{id}/b} as {@code /a/[^/]+/b}. */
    private static Pattern before(String template) {
        StringBuilder regex = new StringBuilder();
        for (String segment : template.split("/")) {
            if (!segment.isEmpty()) {
                regex.append('/').append(segment.startsWith("{") ? "[^/]+" : Pattern.quote(segment));
            }
        }
        return Pattern.compile(regex.isEmpty() ? "/" : regex.toString());
    }

    @Test
    void matchesPathsExactlyAsTheRegularExpressionBefore() {
        for (String template : TEMPLATES) {
            String[] segments = AllowHeaders.segments(template);
            for (String path : PATHS) {
                assertThat(AllowHeaders.matches(segments, path)).as(template + " ~ " + path)
                        .isEqualTo(before(template).matcher(path).matches());
            }
        }
    }
}
