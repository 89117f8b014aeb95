package narwhal.it;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's promise, checked against the README itself: {@code narwhal demo}, started as its
 * own process, prints the curl command the README shows, and that command's request streams
 * back {@code max_tokens} tokens and {@code [DONE]}. Edit the README's example and this test
 * sends the edited request.
 */
class DemoReadmeTest {

  private static final Pattern ROUTER_URL = Pattern.compile("router on (http://\\S+)");
  private static final Pattern PRINTED_CURL = Pattern.compile("^\\s*(curl -N http://\\S+.*)$");
  private static final Pattern PRINTED_DATA = Pattern.compile("^\\s*(-d '.*')\\s*$");
  private static final Pattern CURL_URL = Pattern.compile("curl -N (http://\\S+)");
  private static final Pattern CURL_HEADER = Pattern.compile("-H '([^']*)'");
  private static final Pattern CURL_DATA = Pattern.compile("-d '([^']*)'");
  /** Not a performance bound: a cold JVM on a shared CI machine, with a wide margin. */
  private static final Duration READY_WITHIN = Duration.ofSeconds(30);

  @Test
  void demo_printsTheReadmeCurl_andAnswersIt_withMaxTokensChunksThenDone() throws Exception {
    Curl readme = Curl.parse(readmeCurl());
    JsonNode readmeBody = json(readme.data());
    assertThat(readme.headers()).contains("Content-Type: application/json");
    assertThat(readmeBody.path("stream").asBoolean()).as("the README's example streams").isTrue();

    long launched = System.nanoTime();
    try (ChildProcess demo = ChildProcess.narwhal("demo", "demo", "--port", "0", "--grpc-port", "0")) {
      String base = demo.awaitLine(ROUTER_URL, READY_WITHIN);
      Duration startup = Duration.ofNanos(System.nanoTime() - launched);
      Curl printed = Curl.parse(demo.awaitLine(PRINTED_CURL, Duration.ofSeconds(5)) + " "
          + demo.awaitLine(PRINTED_DATA, Duration.ofSeconds(5)));

      // The printed command is the README's, but for the port the demo actually bound.
      assertThat(printed.url().getPath()).isEqualTo(readme.url().getPath());
      assertThat(printed.url().getScheme() + "://" + printed.url().getAuthority()).isEqualTo(base);
      assertThat(printed.headers()).isEqualTo(readme.headers());
      assertThat(json(printed.data())).as("the body the demo suggests").isEqualTo(readmeBody);

      long sent = System.nanoTime();
      RouterClient.SseResponse r = new RouterClient(base).stream(readme.url().getPath(), readme.data());
      Duration answered = Duration.ofNanos(System.nanoTime() - sent);
      System.out.printf("narwhal demo: ready %d ms after launch; the README's curl streamed in %d ms%n",
          startup.toMillis(), answered.toMillis());

      assertThat(r.status()).as(demo.output()).isEqualTo(200);
      assertThat(r.contentType()).startsWith("text/event-stream");
      assertThat(r.chunks()).hasSize(readmeBody.path("max_tokens").asInt()).allSatisfy(chunk -> {
        assertThat(chunk.path("object").asText()).isEqualTo("text_completion");
        assertThat(chunk.path("model").asText()).isEqualTo(readmeBody.path("model").asText());
        assertThat(chunk.path("choices").path(0).path("text").asText()).isNotEmpty();
      });
      assertThat(r.endsWithDone()).isTrue();
      assertThat(r.raw().strip()).endsWith("data: [DONE]");
    }
  }

  /** The curl command of the README's "Try the demo" section, continuation lines joined. */
  private static String readmeCurl() throws IOException {
    List<String> lines = Files.readAllLines(readme());
    int section = lines.indexOf("## Try the demo");
    assertThat(section).as("README.md has a '## Try the demo' section").isNotNegative();
    List<String> command = new ArrayList<>();
    boolean inBlock = false;
    for (String line : lines.subList(section + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      if (line.startsWith("```")) {
        if (inBlock && !command.isEmpty()) {
          break;
        }
        inBlock = !inBlock;
        continue;
      }
      if (inBlock && (!command.isEmpty() || line.strip().startsWith("curl "))) {
        command.add(line.strip());
        if (!line.endsWith("\\")) {
          break;
        }
      }
    }
    assertThat(command).as("a curl command in README.md's 'Try the demo' section").isNotEmpty();
    return String.join(" ", command).replace("\\ ", " ");
  }

  /** README.md at the repository root: the build's working directory is a module, or the root. */
  private static Path readme() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("README.md")) && Files.isRegularFile(dir.resolve("mvnw"))) {
        return dir.resolve("README.md");
      }
    }
    throw new AssertionError("no README.md next to mvnw above " + Path.of("").toAbsolutePath());
  }

  /** The parts of a {@code curl -N URL -H '...' -d '...'} command this test compares. */
  private record Curl(URI url, List<String> headers, String data) {

    static Curl parse(String command) {
      Matcher url = CURL_URL.matcher(command);
      Matcher data = CURL_DATA.matcher(command);
      assertThat(url.find()).as("a URL in: %s", command).isTrue();
      assertThat(data.find()).as("a -d body in: %s", command).isTrue();
      List<String> headers = new ArrayList<>();
      Matcher h = CURL_HEADER.matcher(command);
      while (h.find()) {
        headers.add(h.group(1));
      }
      return new Curl(URI.create(url.group(1)), headers, data.group(1));
    }
  }
}
