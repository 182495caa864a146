package io.flashstock.admin;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import java.net.URI;
import java.security.MessageDigest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AdminAccessTest {

    private final MockHttpServletResponse response = new MockHttpServletResponse();

    @Test
    void withoutAConfiguredTokenEveryRequestIsRefused() {
        for (String token : new String[]{null, "", "  "}) {
            var access = new AdminAccess(new AdminSettings(token));
            assertThatThrownBy(() -> access.preHandle(request("Bearer "), response, new Object()))
                    .as("token %s", token)
                    .isInstanceOfSatisfying(AdminAccessDenied.class, denied -> {
                        assertThat(denied.code()).isEqualTo("ADMIN_DISABLED");
                        assertThat(denied.getStatusCode()).isEqualTo(HttpStatus.FORBIDDEN);
                        assertThat(denied.getBody().getType()).isEqualTo(URI.create("urn:flashstock:problem:admin-disabled"));
                        assertThat(denied.getBody().getTitle()).isEqualTo("Admin endpoints are disabled");
                        assertThat(denied.getBody().getDetail())
                                .isEqualTo("no admin token is configured (set STOCK_ADMIN_TOKEN)");
                        assertThat(denied.getHeaders().isEmpty()).isTrue();
                    });
        }
    }

    @Test
    void onlyTheRightBearerTokenPasses() {
        var access = new AdminAccess(new AdminSettings("s3cret"));

        assertThat(access.preHandle(request("Bearer s3cret"), response, new Object())).isTrue();
        assertThat(access.preHandle(request("bearer s3cret"), response, new Object())).isTrue();
        for (String authorization : new String[]{null, "", "s3cret", "Bearer", "Bearer s3cre", "Bearer s3cret ",
                "Basic s3cret", "Bearer S3CRET", "Bearer s3cret-and-more"}) {
            assertThatThrownBy(() -> access.preHandle(request(authorization), response, new Object()))
                    .as("Authorization: %s", authorization)
                    .isInstanceOfSatisfying(AdminAccessDenied.class, denied -> {
                        assertThat(denied.code()).isEqualTo("ADMIN_UNAUTHORIZED");
                        assertThat(denied.getStatusCode()).isEqualTo(HttpStatus.UNAUTHORIZED);
                        assertThat(denied.getBody().getType())
                                .isEqualTo(URI.create("urn:flashstock:problem:admin-unauthorized"));
                        assertThat(denied.getBody().getTitle()).isEqualTo("Admin token missing or wrong");
                        assertThat(denied.getBody().getDetail()).isEqualTo("send Authorization: Bearer <admin token>");
                        assertThat(denied.getHeaders().get(HttpHeaders.WWW_AUTHENTICATE)).containsExactly("Bearer");
                    });
        }
    }

    /**
     * The guard compares SHA-256 digests with {@link MessageDigest#isEqual}: 32 bytes whatever the token's length,
     * and a comparison whose time does not depend on where they differ (constant time by construction; a timing
     * measurement would be noise on a shared machine). What a timing attack would probe, a prefix, an extension, a
     * last or first byte changed, a multiple of the token, is refused like any wrong token.
     */
    @Test
    void nearMissesOfTheTokenAreRefusedLikeAnyWrongToken() {
        String token = "s3cret-admin-token";
        var access = new AdminAccess(new AdminSettings(token));
        for (String guess : new String[]{"s", "s3cret-admin-toke", token + "x", "x3cret-admin-token",
                "s3cret-admin-tokex", token.repeat(10)}) {
            assertThatThrownBy(() -> access.preHandle(request("Bearer " + guess), response, new Object()))
                    .as(guess).isInstanceOfSatisfying(AdminAccessDenied.class,
                            denied -> assertThat(denied.code()).isEqualTo("ADMIN_UNAUTHORIZED"));
        }
        assertThat(access.preHandle(request("Bearer " + token), response, new Object())).isTrue();
    }

    private static MockHttpServletRequest request(String authorization) {
        var request = new MockHttpServletRequest("GET", "/admin/items/x");
        if (authorization != null) {
            request.addHeader("Authorization", authorization);
        }
        return request;
    }
}
