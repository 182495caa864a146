package io.flashstock.order.token;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Date;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TokenCodecTest {

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OTHER_KEY = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);
    private static final Instant NOW = Instant.parse("2026-11-24T01:00:00Z");
    private static final PurchaseToken TOKEN = new PurchaseToken("01a1fe41-68ae-750f-8c58-5022f60b2301", "1234",
            "alice", 2, 7, NOW.plusSeconds(60));

    private final TokenCodec codec = new TokenCodec(KEY, Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void aTokenItSignedVerifiesWithItsClaims() {
        assertThat(codec.verify(codec.sign(TOKEN))).isEqualTo(TOKEN);
    }

    @Test
    void aTokenSignedWithAnotherKeyIsInvalid() {
        String forged = new TokenCodec(OTHER_KEY, Clock.fixed(NOW, ZoneOffset.UTC)).sign(TOKEN);
        assertRefused(forged, TokenCodec.Refusal.INVALID);
    }

    @Test
    void aTokenWhoseClaimsWereChangedIsInvalid() {
        String[] parts = codec.sign(TOKEN).split("\\.");
        String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("\"qty\":2", "\"qty\":20");
        String tampered = parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        assertRefused(tampered, TokenCodec.Refusal.INVALID);
    }

    @Test
    void anUnsignedTokenIsInvalid() throws Exception {
        String none = new PlainJWT(claims(NOW.plusSeconds(60))).serialize();
        // a well-formed JWT to the parser: only the codec's rule (a JWS, HS256) stands between it and its claims
        assertThat(JWTParser.parse(none)).isInstanceOf(PlainJWT.class);
        assertRefused(none, TokenCodec.Refusal.INVALID);
        // the same with a signature part glued on, as some libraries accepted (the parser refuses that one itself)
        assertRefused(none + "c2lnbmF0dXJl", TokenCodec.Refusal.INVALID);
    }

    @Test
    void aTokenSignedWithAnotherAlgorithmIsInvalid() throws Exception {
        // a 384-bit key, so that the codec's own key signs HS384 too: the signature is right, only the algorithm
        // is refused
        byte[] key384 = (new String(KEY, StandardCharsets.US_ASCII) + "0123456789abcdef")
                .getBytes(StandardCharsets.US_ASCII);
        var codec384 = new TokenCodec(key384, Clock.fixed(NOW, ZoneOffset.UTC));
        var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS384), claims(NOW.plusSeconds(60)));
        jwt.sign(new MACSigner(key384));
        assertThat(SignedJWT.parse(jwt.serialize()).verify(new MACVerifier(key384))).as("signed with its key").isTrue();

        assertThatThrownBy(() -> codec384.verify(jwt.serialize())).isInstanceOfSatisfying(TokenCodec.Refused.class,
                refused -> assertThat(refused.refusal()).isEqualTo(TokenCodec.Refusal.INVALID));
        assertThat(codec384.verify(codec384.sign(TOKEN))).as("its HS256 tokens verify").isEqualTo(TOKEN);
    }

    @Test
    void onlyHs256IsAcceptedEvenWhenTheKeyCouldSignMore() throws Exception {
        // a 512-bit key could verify HS512 too: the codec takes HS256 alone, so no token is checked another way
        byte[] longKey = (new String(KEY, StandardCharsets.US_ASCII) + new String(OTHER_KEY, StandardCharsets.US_ASCII))
                .getBytes(StandardCharsets.US_ASCII);
        var longKeyed = new TokenCodec(longKey, Clock.fixed(NOW, ZoneOffset.UTC));
        var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS512), claims(NOW.plusSeconds(60)));
        jwt.sign(new MACSigner(longKey));
        assertThatThrownBy(() -> longKeyed.verify(jwt.serialize())).isInstanceOfSatisfying(TokenCodec.Refused.class,
                refused -> assertThat(refused.refusal()).isEqualTo(TokenCodec.Refusal.INVALID));
        assertThat(longKeyed.verify(longKeyed.sign(TOKEN))).isEqualTo(TOKEN);
    }

    @Test
    void anExpiredTokenIsRefusedAsExpired() {
        String token = codec.sign(new PurchaseToken(TOKEN.id(), "1234", "alice", 2, 7, NOW));
        assertRefused(token, TokenCodec.Refusal.EXPIRED);
    }

    @Test
    void garbageIsInvalid() {
        assertRefused("not-a-token", TokenCodec.Refusal.INVALID);
        assertRefused("", TokenCodec.Refusal.INVALID);
        assertRefused("a.b.c", TokenCodec.Refusal.INVALID);
    }

    @Test
    void aSignedTokenWithoutTheGatesClaimsIsInvalid() throws Exception {
        var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder().jwtID("x")
                .expirationTime(Date.from(NOW.plusSeconds(60))).build());
        jwt.sign(new MACSigner(KEY));
        assertRefused(jwt.serialize(), TokenCodec.Refusal.INVALID);
    }

    private static JWTClaimsSet claims(Instant expiry) {
        return new JWTClaimsSet.Builder().jwtID(TOKEN.id()).subject("alice").claim("item", "1234").claim("qty", 2)
                .claim("gen", 7).expirationTime(Date.from(expiry)).build();
    }

    private void assertRefused(String token, TokenCodec.Refusal refusal) {
        assertThatThrownBy(() -> codec.verify(token)).isInstanceOfSatisfying(TokenCodec.Refused.class,
                refused -> assertThat(refused.refusal()).isEqualTo(refusal));
    }
}
