package io.flashstock.order.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Caps every request body at {@code flashstock.order.max-body-size}. A declared Content-Length over the
 * limit fails the first read, so nothing of it is read; a chunked body fails as soon as it passes the limit.
 * The failure reaches the JSON converter as an I/O error and {@link ProblemAdvice} answers 413.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class RequestBodyLimit extends OncePerRequestFilter {

    private final long limit;

    RequestBodyLimit(WebSettings settings) {
        this.limit = settings.maxBodySize().toBytes();
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        chain.doFilter(new LimitedRequest(request, limit), response);
    }

    private static final class LimitedRequest extends HttpServletRequestWrapper {

        private final long limit;
        private ServletInputStream stream;

        LimitedRequest(HttpServletRequest request, long limit) {
            super(request);
            this.limit = limit;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new LimitedStream(super.getInputStream(), limit, getContentLengthLong() > limit);
            }
            return stream;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            String encoding = getCharacterEncoding();
            Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
            return new BufferedReader(new InputStreamReader(getInputStream(), charset));
        }
    }

    private static final class LimitedStream extends ServletInputStream {

        private final ServletInputStream body;
        private final long limit;
        private final boolean declaredTooLarge;
        private long read;

        LimitedStream(ServletInputStream body, long limit, boolean declaredTooLarge) {
            this.body = body;
            this.limit = limit;
            this.declaredTooLarge = declaredTooLarge;
        }

        @Override
        public int read() throws IOException {
            checkBefore();
            int b = body.read();
            if (b >= 0) {
                countAfter(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            checkBefore();
            int n = body.read(buffer, offset, length);
            if (n > 0) {
                countAfter(n);
            }
            return n;
        }

        private void checkBefore() throws BodyTooLargeException {
            if (declaredTooLarge) {
                throw new BodyTooLargeException(limit);
            }
        }

        private void countAfter(int n) throws BodyTooLargeException {
            read += n;
            if (read > limit) {
                throw new BodyTooLargeException(limit);
            }
        }

        @Override
        public boolean isFinished() {
            return body.isFinished();
        }

        @Override
        public boolean isReady() {
            return body.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            body.setReadListener(listener);
        }

        @Override
        public void close() throws IOException {
            body.close();
        }
    }
}
