package narwhal.bench.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options the benchmark runs the router with: {@code --router-java-opts} when given, else
 * exactly what {@code bin/narwhal} uses by default — the words of {@code bin/jvm.options}, where a
 * line whose first non-blank character is {@code #} is a comment — so the sweep measures the
 * router as an operator runs it. No file means no options, as for {@code bin/narwhal}.
 *
 * @param options the options, space-separated (possibly empty)
 * @param source where they came from, for the report
 */
public record RouterJvmOptions(String options, String source) {

  public static final String FILE = "bin/jvm.options";

  /** {@code flag} when not null, else {@code repo}'s {@code bin/jvm.options}. */
  public static RouterJvmOptions choose(@org.jspecify.annotations.Nullable String flag, Path repo) {
    if (flag != null) {
      return new RouterJvmOptions(flag.trim(), "--router-java-opts");
    }
    Path file = repo.resolve(FILE);
    try {
      return new RouterJvmOptions(parse(Files.readString(file)), FILE);
    } catch (NoSuchFileException e) {
      return new RouterJvmOptions("", FILE + " (missing: no options)");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** The options of a {@code jvm.options} text, one space between them. */
  static String parse(String text) {
    List<String> words = new ArrayList<>();
    for (String line : text.split("\\R")) {
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      for (String w : t.split("\\s+")) {
        words.add(w);
      }
    }
    return String.join(" ", words);
  }

  /** {@code `opts` (from source)} for the report. */
  public String describe() {
    return "`" + (options.isEmpty() ? "(none)" : options) + "` (from " + source + ")";
  }
}
