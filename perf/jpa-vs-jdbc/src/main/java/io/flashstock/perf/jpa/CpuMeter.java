package io.flashstock.perf.jpa;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** The costs read around one repetition: this JVM's CPU, the writing thread's CPU and allocation, GC, the server's CPU. */
final class CpuMeter {

    /** USER_HZ of /proc/<pid>/stat; 100 on Linux whatever the kernel's own tick. */
    private static final long TICKS_PER_SECOND = 100;

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final long dbPid;

    CpuMeter(long dbPid) {
        this.dbPid = dbPid;
    }

    Reading read() {
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        return new Reading(System.nanoTime(), os.getProcessCpuTime(), threads.getCurrentThreadCpuTime(),
                threads.getCurrentThreadAllocatedBytes(), gcMillis, dbCpuNanos());
    }

    private long dbCpuNanos() {
        if (dbPid <= 0) {
            return 0;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(dbPid), "stat"));
            // fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return ticks * 1_000_000_000L / TICKS_PER_SECOND;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    record Reading(long wallNanos, long processCpuNanos, long threadCpuNanos, long threadAllocatedBytes,
                   long gcMillis, long dbCpuNanos) {
    }
}
