package io.flashstock.order.token;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.SignedJWT;

import java.text.ParseException;
import java.time.Clock;
import java.util.Date;

/**
 * Signs and verifies purchase tokens: compact JWS, HS256 only (a token with another algorithm, {@code none}
 * included, is refused before its signature is looked at), claims {@code jti}, {@code sub} (user), {@code item},
 * {@code qty}, {@code gen}, {@code exp}. The clock decides expiry here only to refuse early; the hold in Redis is
 * what decides whether the units are still the token's.
 */
class TokenCodec {

    private static final String ITEM = "item";
    private static final String QUANTITY = "qty";
    private static final String GENERATION = "gen";

    /** Why a token was refused. */
    enum Refusal { INVALID, EXPIRED }

    static final class Refused extends RuntimeException {
        private final Refusal refusal;

        Refused(Refusal refusal, String message) {
            super(message, null, false, false);
            this.refusal = refusal;
        }

        Refusal refusal() {
            return refusal;
        }
    }

    private final MACSigner signer;
    private final MACVerifier verifier;
    private final Clock clock;

    TokenCodec(byte[] key, Clock clock) {
        try {
            this.signer = new MACSigner(key);
            this.verifier = new MACVerifier(key);
        } catch (JOSEException e) {
            throw new IllegalArgumentException("unusable token key: " + e.getMessage(), e);
        }
        this.clock = clock;
    }

    String sign(PurchaseToken token) {
        var claims = new JWTClaimsSet.Builder()
                .jwtID(token.id())
                .subject(token.userId())
                .claim(ITEM, token.itemCode())
                .claim(QUANTITY, token.quantity())
                .claim(GENERATION, token.generation())
                .issueTime(Date.from(clock.instant()))
                .expirationTime(Date.from(token.expiresAt()))
                .build();
        var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("could not sign a purchase token", e);
        }
        return jwt.serialize();
    }

    /**
     * The token's claims, if it is well formed, signed with this service's key, and unexpired.
     *
     * @throws Refused otherwise
     */
    PurchaseToken verify(String compact) {
        JWT parsed;
        try {
            // any JWT, unsigned and encrypted ones included: the rule below, not the parser, decides what is refused
            parsed = JWTParser.parse(compact);
        } catch (ParseException | RuntimeException e) {
            throw new Refused(Refusal.INVALID, "the token is not a JWT");
        }
        if (!(parsed instanceof SignedJWT jwt) || !JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())) {
            throw new Refused(Refusal.INVALID, "the token is not signed with HS256");
        }
        try {
            if (!jwt.verify(verifier)) {
                throw new Refused(Refusal.INVALID, "the token's signature is not this service's");
            }
        } catch (JOSEException | IllegalStateException e) {
            throw new Refused(Refusal.INVALID, "the token's signature could not be verified");
        }
        PurchaseToken token;
        try {
            var claims = jwt.getJWTClaimsSet();
            Long quantity = claims.getLongClaim(QUANTITY);
            Long generation = claims.getLongClaim(GENERATION);
            String item = claims.getStringClaim(ITEM);
            if (claims.getJWTID() == null || claims.getSubject() == null || item == null || quantity == null
                    || generation == null || claims.getExpirationTime() == null) {
                throw new Refused(Refusal.INVALID, "the token lacks a claim");
            }
            token = new PurchaseToken(claims.getJWTID(), item, claims.getSubject(), Math.toIntExact(quantity),
                    generation, claims.getExpirationTime().toInstant());
        } catch (ParseException | ArithmeticException e) {
            throw new Refused(Refusal.INVALID, "the token's claims are malformed");
        }
        if (!clock.instant().isBefore(token.expiresAt())) {
            throw new Refused(Refusal.EXPIRED, "the token expired at " + token.expiresAt());
        }
        return token;
    }
}
