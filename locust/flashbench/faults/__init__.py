"""Fault injection under load and under scarcity: each scenario sends a steady stream of orders for an item whose
stock runs out while one part of the stack is broken, lets the pipeline drain, reconciles, and judges the whole
history of requests (flashbench/history.py). A scenario passes only if nothing was oversold (per generation,
Σ units committed ≤ its baseline), nothing lost (every 200 names an order that was committed and applied in the
stock database), no refused order was committed anyway, nothing applied twice, no user went over the per-user
limit, and the reconciliation is exact. Stranded units (stock Redis can no longer sell) are reported.

    scripts/faults [--topology single|cluster] [--scenarios relay-kill,consumer-kill,api-kill,api-kill-in-doubt,kafka-stop,db-stop,redis-restart,
                                reload-storm,redis-aof-kill,reset-during-load,per-user-limit,entry-flood,units-back-in-crowd]
                   [--rate 300] [--duration 60] [--stock N | --stock-share 0.4] [--out DIR]

Orders ask for 1–3 units (uniformly), and the item's stock is by default 40 % of the units the load asks for, so
that it runs out mid-run; the faults are timed around the moment it would run out if every order were served.
Every second order carries an Idempotency-Key. The load is an open model (a request is started every 1/rate s
whether or not earlier ones answered), so a stalled server is not hidden by a client that waits for it.

Scenarios: relay-kill, consumer-kill (kill -9 and restart, 3×), api-kill (1×; its reconciliation may need
--repair-redis for the units a killed process took without committing), api-kill-in-doubt (MariaDB frozen until
orders are in doubt, then order-api killed with them and restarted: they must be settled by the restarted one, with
no repair), kafka-stop (15 s), db-stop (10 s),
redis-restart (no persistence: the engine rebuilds the lost counter by itself), reload-storm (a reload every
0.5 s while orders arrive), redis-aof-kill (Redis with AOF everysec, SIGKILLed and restarted with the last second
of its AOF cut off, so it comes back stale), reset-during-load (a new generation while orders arrive: each is
judged against its own baseline), per-user-limit (redis-restart with a limit of 3 per user and a small pool of
users), entry-flood (an item sold through its waiting room: real users enter, poll until admitted and order with
their ticket, at a tenth of the rate (each polls too), entering again when refused 429/503 or when their admission
ended, while throwaway ids flood the room from 32 connections and never order; the sale must sell its whole stock
to the real users. order-api runs it with 10 s admissions and one waiting ticket per unit left, so that the rounds in
which the bots' unused admissions hold the units fit in the run and the room's bound binds), units-back-in-crowd (an
item sold through purchase tokens at half the rate: throwaway ids hold a fifth of the stock with tokens they never
redeem, the crowd buys the rest and is answered SOLD_OUT from each order-api's memory of the sell-out, then the holds
expire (order-api runs it with tokens of 10 s) and their units must be sold to the crowd still asking, none unsold).

On the cluster topology (`scripts/stack up --cluster`; the suite follows `scripts/stack topology`) the orders go to
the two order-apis in turn, and each scenario sells, beside its item, three more on the same Redis shard: one with a
per-user limit of 3, one through the token gate, one through the waiting room (SIDE_ITEMS),
each judged as its own row. Its scenarios (flashbench/cluster): redis-primary-kill (the shard's primary SIGKILLed
before the sell-out, its replica promoted; the gap in selling measured), redis-primary-rejoin (the old primary back
as a replica while orders flow), slot-migration (the item's slot moved live, in batches of keys), broker-leader-kill
(the partition's leader SIGKILLed and restarted, 3×), brokers-down (two of three brokers down for up to 30 s while
the sale goes on: no outbox row may be given up as DEAD; both Kafka faults run three times --duration, with stock that lasts
past them), then api-kill, relay-kill and consumer-kill of the first of the two instances. The report adds
what each measured and every item's time from commit to application before, during and after its fault.

Writes faults.md (the table of docs/reliability.md), faults.json, and for each scenario its reconciliation,
findings.txt (what the checker found) and answers.csv (every request: when it was sent and answered, its status,
problem code, order code, units, user and Idempotency-Key).
"""

# The suite's modules, by job: load (the orders and their clients), probes (what the databases, Redis and the
# services hold), run (a scenario's run and its timing), scenarios, gates and redis_faults (the faults), judge (the
# history checker's verdict on a run), tables (answers.csv, faults.md), sale (one scenario from set-up to verdict),
# and __main__ (the command line). The docstring above is the command line's --help.
