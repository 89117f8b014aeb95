package narwhal.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/** Where one benchmark run writes its results: a new, time-stamped folder per run. */
public final class ResultsDirectory {

  private ResultsDirectory() {}

  /** {@code base/<prefix><yyyyMMdd-HHmmss>}, created with its {@code logs} folder. */
  public static Path create(Path base, String prefix) throws IOException {
    String ts = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = base.resolve(prefix + ts);
    Files.createDirectories(dir.resolve("logs"));
    return dir;
  }
}
