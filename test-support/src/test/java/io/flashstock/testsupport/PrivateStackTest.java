package io.flashstock.testsupport;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;

import static org.assertj.core.api.Assertions.assertThat;

/** A private stack leaves nothing behind: each one's data (MariaDB's 256 MB redo log alone) would fill the disk. */
class PrivateStackTest {

    @Test
    void aClosedStackHasRemovedItsStateFolder() throws Exception {
        var stack = PrivateStack.create("removed-on-close");
        var state = stack.stateFolder();
        Files.writeString(state.resolve("data.txt"), "what a server wrote");
        assertThat(state).isDirectory();

        stack.close();

        assertThat(state).doesNotExist();
    }
}
