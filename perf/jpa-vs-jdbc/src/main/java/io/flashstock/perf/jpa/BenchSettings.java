package io.flashstock.perf.jpa;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.nio.file.Path;
import java.util.List;

/**
 * The run, from --bench.* arguments.
 *
 * @param batches       orders per transaction, as the group commit forms them
 * @param reps          measured repetitions of every variant and batch size, the variants in turn
 * @param repSeconds    length of one repetition
 * @param warmupSeconds per variant, over every batch size, before anything is measured
 * @param out           the CSV, appended to
 * @param dbPid         the database server's process, for its CPU per order (0: not measured)
 */
@ConfigurationProperties("bench")
record BenchSettings(@DefaultValue({"1", "8", "32"}) List<Integer> batches, @DefaultValue("3") int reps,
                     @DefaultValue("3") double repSeconds, @DefaultValue("9") double warmupSeconds,
                     @DefaultValue("jpa-vs-jdbc.csv") Path out, @DefaultValue("0") long dbPid) {
}
