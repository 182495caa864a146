package io.flashstock.admin;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.web.servlet.HandlerInterceptor;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Guards {@code /admin/**}: refused (403 {@code ADMIN_DISABLED}) when no token is configured, 401
 * {@code ADMIN_UNAUTHORIZED} unless the request carries {@code Authorization: Bearer <token>}. Compares digests in
 * constant time, so neither the token's content nor its length leaks through timing.
 */
public class AdminAccess implements HandlerInterceptor {

    private static final String BEARER = "Bearer ";

    private final byte[] tokenDigest;

    public AdminAccess(AdminSettings settings) {
        this.tokenDigest = settings.enabled() ? sha256(settings.token()) : null;
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (tokenDigest == null) {
            throw AdminAccessDenied.disabled();
        }
        String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
                || !MessageDigest.isEqual(tokenDigest, sha256(authorization.substring(BEARER.length())))) {
            throw AdminAccessDenied.unauthorized();
        }
        return true;
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
