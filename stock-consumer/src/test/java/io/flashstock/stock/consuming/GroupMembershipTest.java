package io.flashstock.stock.consuming;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class GroupMembershipTest {

    @Test
    void aFixedPortOnAHostNamesTheInstance() {
        assertThat(GroupMembership.instanceId(settings(true, null), 8082, () -> "node-7.example"))
                .contains("stock-consumer-node-7.example-8082");
    }

    @Test
    void charactersKafkaRefusesInAHostNameAreReplaced() {
        assertThat(GroupMembership.instanceId(settings(true, null), 8082, () -> "böx:1"))
                .contains("stock-consumer-b_x_1-8082");
    }

    @Test
    void aRandomPortNamesNoInstanceSoTheConsumersJoinAsDynamicMembers() {
        assertThat(GroupMembership.instanceId(settings(true, null), 0, () -> "host")).isEmpty();
    }

    @Test
    void aConfiguredIdWinsAndStaticMembershipCanBeSwitchedOff() {
        assertThat(GroupMembership.instanceId(settings(true, "consumer-a"), 0, () -> "host")).contains("consumer-a");
        assertThat(GroupMembership.instanceId(settings(false, "consumer-a"), 8082, () -> "host")).isEmpty();
    }

    @Test
    void anIdKafkaWouldRefuseFailsAtStartUp() {
        assertThatIllegalArgumentException().isThrownBy(() -> settings(true, "pod 1"))
                .withMessageContaining("flashstock.consumer.instance-id");
        assertThatIllegalArgumentException().isThrownBy(() -> settings(true, ""));
    }

    private static ConsumerSettings settings(boolean staticMembership, String instanceId) {
        return new ConsumerSettings("stock-events", new ConsumerSettings.Retry(Duration.ofMillis(500), 2,
                Duration.ofSeconds(30), 3), Duration.ofMinutes(5), Duration.ofMinutes(2), staticMembership, instanceId);
    }
}
