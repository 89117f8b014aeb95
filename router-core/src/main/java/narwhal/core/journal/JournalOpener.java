package narwhal.core.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Opens the journal file for writing at its end; a seam for tests that need a failing disk. */
@FunctionalInterface
public interface JournalOpener {
  WritableByteChannel open(Path file) throws IOException;

  /** The real file, created if absent, every write appended at its end. */
  static JournalOpener append() {
    return file -> FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
  }
}
