package io.flashstock.order.queue;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

import java.util.Set;

/**
 * What an item's waiting room holds, for the reconciliation report: the tickets waiting, and the admissions not
 * yet used (including ended ones the next tick will expire) with their units. Admissions reserve units of the
 * counter only in the scheduler's arithmetic; the counter holds them until an order takes them, so the Redis
 * counter still equals baseline − Σ orders.
 */
@Component
public class WaitingRoomFigures {

    /** {@code admittedUnits} is the sum of the unused admissions' quantities. */
    public record Figures(long waiting, long admittedUnused, long admittedUnits) {
    }

    private final StringRedisTemplate redis;

    public WaitingRoomFigures(StringRedisTemplate redis) {
        this.redis = redis;
    }

    public Figures of(String itemCode, long generation) {
        String queue = QueueKeys.queue(itemCode, generation);
        Long waiting = redis.opsForZSet().zCard(queue + ":waiting");
        Set<String> admitted = redis.opsForZSet().range(queue + ":admitted", 0, -1);
        long units = admitted == null ? 0 : admitted.stream()
                .mapToLong(member -> Long.parseLong(member.substring(member.indexOf(':') + 1))).sum();
        return new Figures(waiting == null ? 0 : waiting, admitted == null ? 0 : admitted.size(), units);
    }
}
