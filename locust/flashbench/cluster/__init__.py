"""The fault suite's cluster topology (`scripts/stack up --cluster`): what it asks the Redis Cluster and the brokers
(which node serves an item's slot, which broker leads its partition), and the faults only a cluster has: a Redis
primary killed and its replica promoted, the old primary back as a replica, a live slot migration, the partition
leader killed, two of three brokers down. flashbench.faults runs them as it runs the others (`scripts/faults --topology
cluster`), under the same load and checker.
"""
