package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.Route;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's format over real sockets: each row names its front-end, durations end in
 * {@code _s}, numbers are plain decimals, and {@code input_len} comes from the engine's usage when
 * the router did not count the prompt.
 */
class JournalFormatTest {

  /** A JSON number in exponent notation, as Jackson writes 1.23E-4 or 1.7E9. */
  private static final Pattern EXPONENT = Pattern.compile("[:\\[,]-?[0-9.]+[eE][-+]?[0-9]+");

  @Test
  void httpAndGrpcRows_nameTheirFrontEnd_withPlainDecimals_andInputLenFromUsage(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("journal.jsonl");
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, file);
        GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort())) {
      HttpResponse<String> http = fleet.client.post("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"the same words\",\"max_tokens\":3}");
      assertThat(http.statusCode()).as(http.body()).isEqualTo(200);
      long promptTokens = RouterClient.json(http.body()).path("usage").path("prompt_tokens").asLong();
      assertThat(promptTokens).isPositive();
      // Route left unspecified: the prompt makes it a completion.
      GrpcRouterClient.Outcome<Completion> viaGrpc = grpc.complete(GrpcRouterClient.completion("the same words", 3)
          .toBuilder().setRoute(Route.ROUTE_UNSPECIFIED).build());
      assertThat(viaGrpc.status()).isEqualTo(Status.OK);

      String httpRid = http.headers().firstValue("x-request-id").orElseThrow();
      String grpcRid = viaGrpc.header(GrpcRouterClient.REQUEST_ID);
      JsonNode httpRow = fleet.journal().awaitRow("the HTTP request", r -> r.path("rid").asText().equals(httpRid));
      JsonNode grpcRow = fleet.journal().awaitRow("the gRPC request", r -> r.path("rid").asText().equals(grpcRid));
      assertThat(httpRow.path("front_end").asText()).isEqualTo("http");
      assertThat(grpcRow.path("front_end").asText()).isEqualTo("grpc");
      assertThat(grpcRow.path("route").asText()).isEqualTo("completions");
      // A text prompt is not counted by the router: the engine's usage.prompt_tokens fills it.
      assertThat(httpRow.path("input_len").asLong()).as("row %s", httpRow).isEqualTo(promptTokens);
      assertThat(grpcRow.path("input_len").asLong()).as("row %s", grpcRow).isEqualTo(promptTokens);
      for (JsonNode row : List.of(httpRow, grpcRow)) {
        assertThat(row.has("upstream_s")).as("row %s", row).isTrue();
        row.fieldNames().forEachRemaining(k -> assertThat(k).as("row %s", row).doesNotEndWith("_seconds"));
      }
    }
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSizeGreaterThanOrEqualTo(3);
    for (String line : lines) {
      assertThat(EXPONENT.matcher(line).find()).as("a number in exponent notation in %s", line).isFalse();
    }
    // Epoch seconds are over 1e7, which Java's Double.toString spells with an exponent.
    assertThat(lines.get(1)).containsPattern("\"arrived\":1[0-9]{9}\\.[0-9]+[,}]");
  }
}
