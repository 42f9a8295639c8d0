package io.outpost.model.error;

import java.util.ArrayList;
import java.util.List;

/** Body of every 422 answer: {@code {"detail":[{"loc":[...],"msg":"...","type":"..."}]}}. */
public record ValidationErrorResponse(List<ErrorDetail> detail) {

    /**
     * The most faults a 422 lists one by one. A request line of 8 KiB holds ≈ 8,000 empty list items, and a body
     * up to 1,000 wrongly typed values: listed whole, such an answer ran to ≈ 700 KB for a request a hundredth of
     * that, and every fault past the first few says nothing a client can act on that the first ones did not.
     */
    public static final int MAX_LISTED = 20;

    public ValidationErrorResponse {
        detail = List.copyOf(detail);
    }

    /**
     * The answer to {@code faults}: the first {@link #MAX_LISTED} of them, then, when there are more, one entry
     * saying how many were not listed, located where all of those lie (their locations' common start).
     */
    public static ValidationErrorResponse of(List<ErrorDetail> faults) {
        if (faults.size() <= MAX_LISTED) {
            return new ValidationErrorResponse(faults);
        }
        List<ErrorDetail> listed = new ArrayList<>(faults.subList(0, MAX_LISTED));
        listed.add(ErrorDetail.notListed(commonStart(faults.subList(MAX_LISTED, faults.size())),
                faults.size() - MAX_LISTED));
        return new ValidationErrorResponse(listed);
    }

    private static List<Object> commonStart(List<ErrorDetail> faults) {
        List<Object> start = faults.get(0).loc();
        int length = start.size();
        for (ErrorDetail fault : faults) {
            List<Object> loc = fault.loc();
            int same = 0;
            while (same < length && same < loc.size() && start.get(same).equals(loc.get(same))) {
                same++;
            }
            length = same;
        }
        return start.subList(0, length);
    }
}
