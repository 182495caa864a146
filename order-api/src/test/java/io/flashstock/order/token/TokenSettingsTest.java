package io.flashstock.order.token;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TokenSettingsTest {

    private static TokenSettings withKey(String key) {
        return new TokenSettings(key, Duration.ofSeconds(60), Duration.ofSeconds(5), Duration.ofSeconds(1),
                Duration.ofSeconds(30), 10_000);
    }

    @Test
    void noKeyTurnsTheTokenGateOff() {
        assertThat(withKey("").enabled()).isFalse();
    }

    @Test
    void aKeyShorterThan256BitsIsRefused() {
        assertThatThrownBy(() -> withKey(Base64.getEncoder().encodeToString(new byte[31])))
                .hasMessageContaining("256 bits");
        assertThat(withKey(Base64.getEncoder().encodeToString(new byte[32])).enabled()).isTrue();
    }

    @Test
    void aKeyThatIsNotBase64IsRefused() {
        assertThatThrownBy(() -> withKey("not base64 at all!")).hasMessageContaining("base64");
    }
}
