package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the project's Markdown resolves: the file exists, and an anchor names a
 * heading of it (GitHub's slugs). Pages move and sections get renamed (the operator's guide was
 * one page, then five); a reader following a link from another page, or from an error message,
 * should land where it says.
 */
class DocsLinksTest {

  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6} (.*)$");
  private static final Pattern FENCE = Pattern.compile("^\\s*```");

  private final Map<Path, Set<String>> anchors = new HashMap<>();

  @Test
  void everyRelativeLinkInTheDocs_namesAFileThatExists_andAHeadingOfIt() throws IOException {
    Path root = repositoryRoot();
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages(root)) {
      for (String target : links(page)) {
        if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
          continue; // http:, https:, mailto: — not ours to check offline
        }
        checked++;
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
        if (!Files.exists(file)) {
          broken.add(root.relativize(page) + ": " + target + " (no such file)");
        } else if (anchor != null && file.toString().endsWith(".md") && !anchorsOf(file).contains(anchor)) {
          broken.add(root.relativize(page) + ": " + target + " (no heading with that anchor in "
              + root.relativize(file) + ")");
        }
      }
    }
    assertThat(checked).as("links found in the docs").isGreaterThan(100);
    assertThat(broken).as("broken links").isEmpty();
  }

  /** The project's pages: every .md file, but not dependencies', build output or generated reports. */
  private static List<Path> pages(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.toString().endsWith(".md"))
          .filter(p -> {
            String rel = root.relativize(p).toString();
            return !rel.contains("node_modules") && !rel.contains("/target/") && !rel.startsWith(".tools")
                && !rel.startsWith(".git") && !(rel.startsWith("bench/results/") && !rel.endsWith("notes.md"));
          })
          .sorted().toList();
    }
  }

  /** The link targets of {@code page}, outside fenced code blocks. */
  private static List<String> links(Path page) throws IOException {
    List<String> out = new ArrayList<>();
    boolean code = false;
    for (String line : Files.readAllLines(page)) {
      if (FENCE.matcher(line).find()) {
        code = !code;
        continue;
      }
      if (!code) {
        Matcher m = LINK.matcher(line);
        while (m.find()) {
          out.add(m.group(1));
        }
      }
    }
    return out;
  }

  /** GitHub's anchors for {@code file}'s headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
  private Set<String> anchorsOf(Path file) throws IOException {
    Set<String> cached = anchors.get(file);
    if (cached != null) {
      return cached;
    }
    Set<String> out = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean code = false;
    for (String line : Files.readAllLines(file)) {
      if (FENCE.matcher(line).find()) {
        code = !code;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (!code && m.matches()) {
        String slug = m.group(1).strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
            .replace(' ', '-');
        int n = seen.merge(slug, 1, Integer::sum) - 1;
        out.add(n == 0 ? slug : slug + "-" + n);
      }
    }
    anchors.put(file, out);
    return out;
  }

  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isRegularFile(dir.resolve("README.md"))) {
        return dir;
      }
    }
    throw new AssertionError("no repository root (mvnw and README.md) above " + Path.of("").toAbsolutePath());
  }
}
