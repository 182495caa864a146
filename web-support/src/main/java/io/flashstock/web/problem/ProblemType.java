package io.flashstock.web.problem;

import org.springframework.http.HttpStatus;

import java.net.URI;
import java.util.Locale;

/**
 * A problem a service answers with: its HTTP status, its title and its stable {@code code}, which clients may rely
 * on (titles and details are for people and may change). Each service lists its own problems as an enum that
 * implements this, so a service answers only with the codes it documents.
 */
public interface ProblemType {

    HttpStatus status();

    String title();

    /** RFC 9457 {@code type}: a URN per problem, since titles more specific than the status phrase need one. */
    URI type();

    String code();

    /** The {@code type} URN of a code: {@code SOLD_OUT} is {@code urn:flashstock:problem:sold-out}. */
    static URI urn(String code) {
        return URI.create("urn:flashstock:problem:" + code.toLowerCase(Locale.ROOT).replace('_', '-'));
    }
}
