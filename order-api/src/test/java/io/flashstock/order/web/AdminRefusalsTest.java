package io.flashstock.order.web;

import io.flashstock.admin.AdminAccess;
import io.flashstock.admin.AdminAccessDenied;
import io.flashstock.admin.AdminSettings;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.context.request.ServletWebRequest;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The web-support module's refusals are answered as this service's {@link ProblemType#ADMIN_DISABLED} and
 * {@link ProblemType#ADMIN_UNAUTHORIZED}, which the container's own 401 and 403 also use: one answer per problem.
 */
class AdminRefusalsTest {

    private final ProblemAdvice advice = new ProblemAdvice(List.of());

    @Test
    void withoutAConfiguredTokenTheAnswerIsAdminDisabled() {
        ResponseEntity<ProblemDetail> answer = answerTo(new AdminSettings(""), "Bearer ");

        assertAnswered(answer, ProblemType.ADMIN_DISABLED);
        assertThat(answer.getHeaders().get(HttpHeaders.WWW_AUTHENTICATE)).isNull();
    }

    @Test
    void aWrongTokenIsAnsweredAdminUnauthorizedWithTheBearerChallenge() {
        ResponseEntity<ProblemDetail> answer = answerTo(new AdminSettings("s3cret"), "Bearer wrong");

        assertAnswered(answer, ProblemType.ADMIN_UNAUTHORIZED);
        assertThat(answer.getHeaders().get(HttpHeaders.WWW_AUTHENTICATE)).containsExactly("Bearer");
    }

    private ResponseEntity<ProblemDetail> answerTo(AdminSettings settings, String authorization) {
        var request = new MockHttpServletRequest("GET", "/admin/items/x");
        request.addHeader(HttpHeaders.AUTHORIZATION, authorization);
        AdminAccessDenied denied = catchThrowableOfType(AdminAccessDenied.class,
                () -> new AdminAccess(settings).preHandle(request, new MockHttpServletResponse(), new Object()));
        return advice.adminAccessDenied(denied, new ServletWebRequest(request));
    }

    private static void assertAnswered(ResponseEntity<ProblemDetail> answer, ProblemType type) {
        assertThat(answer.getStatusCode()).isEqualTo(type.status());
        assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        assertThat(answer.getBody().getType()).isEqualTo(type.type());
        assertThat(answer.getBody().getTitle()).isEqualTo(type.title());
        assertThat(answer.getBody().getProperties()).containsEntry("code", type.code());
    }
}
