"""The cluster topology's own scenarios, and the order the fault suite runs them in on that topology."""
from flashbench.cluster.kafka_faults import (KAFKA_DURATION_FACTOR, KAFKA_STOCK_SHARE, broker_leader_kill,
                                             brokers_down, look_up_leader)
from flashbench.cluster.redis_faults import look_up_owner, redis_primary_kill, redis_primary_rejoin, slot_migration
from flashbench.faults.run import Scenario

SCENARIOS = {
    "redis-primary-kill": Scenario(redis_primary_kill, prepare=look_up_owner),
    "redis-primary-rejoin": Scenario(redis_primary_rejoin, prepare=look_up_owner),
    "slot-migration": Scenario(slot_migration, prepare=look_up_owner),
    "broker-leader-kill": Scenario(broker_leader_kill(3), prepare=look_up_leader,
                                          duration_factor=KAFKA_DURATION_FACTOR, stock_share=KAFKA_STOCK_SHARE),
    "brokers-down": Scenario(brokers_down, prepare=look_up_leader, duration_factor=KAFKA_DURATION_FACTOR,
                                    stock_share=KAFKA_STOCK_SHARE),
}
# the cluster topology's run: its own faults, then the kills of one of the two order-apis, relays and consumers
DEFAULT = [*SCENARIOS, "api-kill", "relay-kill", "consumer-kill"]
