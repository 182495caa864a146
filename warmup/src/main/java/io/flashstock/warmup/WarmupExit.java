package io.flashstock.warmup;

/**
 * Ends the process once the warm-up is done, when {@code flashstock.warmup.exit-after} asks for it: an AOT cache's
 * training run then records the profiles of the order path the warm-up ran, not only the classes of start-up.
 */
@FunctionalInterface
public interface WarmupExit {

    void exit(WarmupReport report);
}
