package io.flashstock.order.web;

import java.io.IOException;

/** Thrown by the request body stream once a body is longer than the limit; answered with 413. */
class BodyTooLargeException extends IOException {

    BodyTooLargeException(long limit) {
        super("the request body exceeds " + limit + " bytes");
    }
}
