package io.flashstock.order.web;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StrictJsonConfigurationTest {

    record Body(String text, Integer number) {
    }

    private final JsonMapper lenient = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private final JsonMapper strict = StrictJsonConfiguration.strict(lenient);

    @Test
    void readsAWellFormedBody() {
        assertThat(strict.readValue("{\"text\":\"a\",\"number\":3}", Body.class)).isEqualTo(new Body("a", 3));
        assertThat(strict.readValue("{}", Body.class)).isEqualTo(new Body(null, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"text\":\"a\",\"other\":1}",
            "{\"text\":\"a\",\"text\":\"b\"}",
            "{\"number\":1.5}",
            "{\"number\":1.0}",
            "{\"number\":\"1\"}",
            "{\"number\":true}",
            "{\"text\":1}",
            "{\"text\":false}",
            "{\"text\":\"a\"} {}",
            "{\"number\":2147483648}"})
    void refusesWhatTheLenientMapperWouldGuessAt(String json) {
        assertThatThrownBy(() -> strict.readValue(json, Body.class)).isInstanceOf(JacksonException.class);
    }

    @Test
    void leavesTheApplicationMapperAsItWas() {
        assertThat(lenient.readValue("{\"text\":\"a\",\"other\":1}", Body.class)).isEqualTo(new Body("a", null));
    }
}
