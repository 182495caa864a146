package io.flashstock.order.web;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AdminAccessTest {

    private final MockHttpServletResponse response = new MockHttpServletResponse();

    @Test
    void withoutAConfiguredTokenEveryRequestIsRefused() {
        for (String token : new String[]{null, "", "  "}) {
            var access = new AdminAccess(new AdminSettings(token));
            assertThatThrownBy(() -> access.preHandle(request("Bearer "), response, new Object()))
                    .isInstanceOfSatisfying(ProblemException.class,
                            e -> assertThat(e.type()).isEqualTo(ProblemType.ADMIN_DISABLED));
        }
    }

    @Test
    void onlyTheRightBearerTokenPasses() {
        var access = new AdminAccess(new AdminSettings("s3cret"));

        assertThat(access.preHandle(request("Bearer s3cret"), response, new Object())).isTrue();
        assertThat(access.preHandle(request("bearer s3cret"), response, new Object())).isTrue();
        for (String authorization : new String[]{null, "", "s3cret", "Bearer", "Bearer s3cre", "Bearer s3cret ",
                "Basic s3cret", "Bearer S3CRET"}) {
            assertThatThrownBy(() -> access.preHandle(request(authorization), response, new Object()))
                    .as("Authorization: %s", authorization)
                    .isInstanceOfSatisfying(ProblemException.class,
                            e -> assertThat(e.type()).isEqualTo(ProblemType.ADMIN_UNAUTHORIZED));
        }
    }

    private static MockHttpServletRequest request(String authorization) {
        var request = new MockHttpServletRequest("GET", "/admin/items/x");
        if (authorization != null) {
            request.addHeader("Authorization", authorization);
        }
        return request;
    }
}
