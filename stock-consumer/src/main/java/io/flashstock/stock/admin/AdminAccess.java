package io.flashstock.stock.admin;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.servlet.HandlerInterceptor;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Guards {@code /admin/**} as order-api and outbox-relay do: refused (403 {@code ADMIN_DISABLED}) when no token is
 * configured, 401 {@code ADMIN_UNAUTHORIZED} unless the request carries {@code Authorization: Bearer <token>}.
 * Compares digests in constant time, so neither the token's content nor its length leaks through timing.
 */
class AdminAccess implements HandlerInterceptor {

    private static final String BEARER = "Bearer ";

    private final byte[] tokenDigest;

    AdminAccess(AdminSettings settings) {
        this.tokenDigest = settings.enabled() ? sha256(settings.token()) : null;
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (tokenDigest == null) {
            throw refused(HttpStatus.FORBIDDEN, "Admin endpoints are disabled", "ADMIN_DISABLED",
                    "no admin token is configured (set STOCK_ADMIN_TOKEN)");
        }
        String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
                || !MessageDigest.isEqual(tokenDigest, sha256(authorization.substring(BEARER.length())))) {
            ErrorResponseException unauthorized = refused(HttpStatus.UNAUTHORIZED, "Admin token missing or wrong",
                    "ADMIN_UNAUTHORIZED", "send Authorization: Bearer <admin token>");
            unauthorized.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
            throw unauthorized;
        }
        return true;
    }

    private static ErrorResponseException refused(HttpStatus status, String title, String code, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        problem.setProperty("code", code);
        return new ErrorResponseException(status, problem, null);
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
