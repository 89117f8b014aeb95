package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import narwhal.config.ApiKeyHash;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.Completion;
import narwhal.server.DemoFleet;
import narwhal.server.logs.LogSetup;
import narwhal.testing.Poll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What {@code narwhal serve} writes to stderr when clients are hostile, as its own process with
 * the shipped logback.xml: an HTTP/1 request line sent to the gRPC port, carrying a forged log
 * line after a bare LF, writes nothing by default and, with gRPC's connection log turned on, never
 * stands as a line of its own (in either format; in {@code json} every stderr line is one JSON
 * object); and a tenant's key sent over gRPC appears nowhere in what the router prints at DEBUG
 * or TRACE.
 */
class LogSafetyTest {

  private static final Pattern GRPC_PORT = Pattern.compile("serving gRPC \\(narwhal.v1.Router\\) on [^:]+:(\\d+)");
  private static final Pattern HTTP_URL = Pattern.compile("narwhal: serving (http://\\S+)");
  private static final Duration STARTUP = Duration.ofSeconds(40);
  private static final Path SHIPPED_CONFIG =
      Path.of("..", "router-server", "src", "main", "resources", "logback.xml").toAbsolutePath();
  private static final String FORGED =
      "{\"ts\":\"2026-12-04T00:00:00.000Z\",\"level\":\"ERROR\",\"logger\":\"narwhal.report\",\"msg\":\"FORGED LINE\"}";

  @TempDir Path dir;
  private EventLoopGroup simGroup;
  private DemoFleet engines;

  @BeforeEach
  void engines() {
    simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    engines = DemoFleet.start(1, 1, RoutedFleet.fastEngines().build(), simGroup);
  }

  @AfterEach
  void stopEngines() {
    engines.close();
    simGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /**
   * The reproduction as an operator would run it: by default gRPC's per-connection failure log is
   * held at WARN, so a client speaking HTTP/1 to the gRPC port writes nothing at all.
   */
  @Test
  void byDefault_anHttp1RequestLineOnTheGrpcPort_writesNothing() throws Exception {
    Path stderr = dir.resolve("stderr.log");
    try (ChildProcess serve = serve(stderr, Map.of("NARWHAL_LOG_FORMAT", "json"), fleetFile(null))) {
      int grpcPort = Integer.parseInt(serve.awaitLine(GRPC_PORT, STARTUP));
      sendAndReadToEnd(grpcPort, "GET /x\n" + FORGED + "\n HTTP/1.1\r\n\r\n");
      serve.terminate();
      serve.awaitExit(Duration.ofSeconds(20));
    }
    String written = Files.readString(stderr, StandardCharsets.UTF_8);
    assertThat(written).contains("narwhal stopped").doesNotContain("FORGED").doesNotContain("Unexpected");
    written.lines().forEach(l -> assertThat(RouterClient.json(l).isObject()).as(l).isTrue());
  }

  /**
   * With gRPC's connection log asked for by name, the failure is logged, quoting the request line:
   * escaped, in one line, in either format.
   */
  @ParameterizedTest
  @ValueSource(strings = {"text", "json"})
  void anHttp1RequestLineOnTheGrpcPort_forgesNoLogLine(String format) throws Exception {
    Path stderr = dir.resolve("stderr.log");
    Map<String, String> env = Map.of("NARWHAL_LOG_FORMAT", format, "NARWHAL_LOG_LEVELS", LogSetup.GRPC_CONNECTIONS + "=INFO");
    try (ChildProcess serve = serve(stderr, env, fleetFile(null))) {
      int grpcPort = Integer.parseInt(serve.awaitLine(GRPC_PORT, STARTUP));
      // The request line up to CRLF is what grpc-java quotes; the bare LFs before it plant the line.
      sendAndReadToEnd(grpcPort, "GET /x\n" + FORGED + "\n HTTP/1.1\r\n\r\n");
      sendAndReadToEnd(grpcPort, "GET /y\r" + FORGED + "\u2028 HTTP/1.1\r\n\r\n");
      // gRPC logs the failed transport once its connection has closed.
      Poll.until("the transport failures logged", () -> count(stderr, "Unexpected HTTP/1.x request") >= 2);
      serve.terminate();
      serve.awaitExit(Duration.ofSeconds(20));
    }

    String written = Files.readString(stderr, StandardCharsets.UTF_8);
    assertThat(written).as("no CR and no Unicode line break that some viewers break lines on")
        .doesNotContain("\r").doesNotContain("\u2028").doesNotContain("\u0085");
    List<String> lines = written.lines().toList();
    assertThat(lines).as("the router's stderr").isNotEmpty()
        .noneMatch(l -> l.startsWith(FORGED)).noneMatch(l -> l.startsWith("{\"ts\":\"2026-12-04T00:00:00.000Z\""));
    assertThat(lines).filteredOn(l -> l.contains("FORGED LINE")).hasSize(2).allSatisfy(l -> assertThat(l)
        .as("the forged text only ever inside the line quoting the request").contains("Unexpected HTTP/1.x request"));
    if (format.equals("json")) {
      for (String line : lines) {
        JsonNode event = RouterClient.json(line);
        assertThat(event.isObject()).as(line).isTrue();
        assertThat(event.path("msg").asText()).isNotEqualTo("FORGED LINE");
      }
    } else {
      // A log line starts with its timestamp; a stack trace line with a tab, "Caused by:" or the
      // exception's class; the command's own report lines with its name: never with what a client chose.
      assertThat(lines).allSatisfy(l -> assertThat(l).matches(
          "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2}) .*|\t.*|Caused by: .*"
              + "|[a-z]+(\\.\\w+)+: .*|narwhal serve: .*"));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"DEBUG", "TRACE"})
  void aTenantKeySentOverGrpc_isNowhereInTheRoutersOutput(String level) throws Exception {
    String key = newKey();
    String wrong = newKey();
    Path stderr = dir.resolve("stderr.log");
    String output;
    try (ChildProcess serve = serve(stderr, Map.of("NARWHAL_LOG_LEVEL", level), fleetFile(key))) {
      int grpcPort = Integer.parseInt(serve.awaitLine(GRPC_PORT, STARTUP));
      RouterClient http = new RouterClient(serve.awaitLine(HTTP_URL, STARTUP));
      try (GrpcRouterClient grpc = new GrpcRouterClient(grpcPort)) {
        assertThat(complete(grpc, "Bearer " + key).status().getCode()).isEqualTo(Status.Code.OK);
        assertThat(complete(grpc, "Bearer " + wrong).status().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      }
      assertThat(http.post("/v1/completions", "{\"prompt\":\"no key\",\"max_tokens\":2}").statusCode()).isEqualTo(401);
      Poll.until("the requests' log lines", () -> count(stderr, "OutcomeRecorder") >= 3);
      serve.terminate();
      serve.awaitExit(Duration.ofSeconds(20));
      output = Files.readString(stderr, StandardCharsets.UTF_8) + "\n" + serve.output();
    }

    assertThat(output).as("%s applied to the router's own loggers", level).contains("request completed");
    for (String secret : List.of(key, wrong, key.substring(13), wrong.substring(13))) {
      assertThat(output).doesNotContain(secret);
    }
    assertThat(output).doesNotContainIgnoringCase("authorization: bearer");
  }

  private static GrpcRouterClient.Outcome<Completion> complete(GrpcRouterClient grpc, String authorization) {
    Metadata metadata = new Metadata();
    metadata.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), authorization);
    RouterGrpc.RouterBlockingStub stub = RouterGrpc.newBlockingStub(grpc.channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata));
    try {
      Completion answer = stub.withDeadlineAfter(20, TimeUnit.SECONDS)
          .complete(GrpcRouterClient.completion("grpc with a key", 3));
      return new GrpcRouterClient.Outcome<>(List.of(answer), Status.OK, null, null);
    } catch (io.grpc.StatusRuntimeException e) {
      return new GrpcRouterClient.Outcome<>(List.of(), e.getStatus(), null, e.getTrailers());
    }
  }

  private ChildProcess serve(Path stderr, Map<String, String> env, Path fleet) throws IOException {
    // --grpc-port 0 turns gRPC off: take a free port (the HTTP port may be 0, the router prints it).
    int grpcPort;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      grpcPort = probe.getLocalPort();
    }
    return ChildProcess.narwhalLoggingTo(stderr, "serve", env, List.of("-Dlogback.configurationFile=" + SHIPPED_CONFIG),
        "serve", "--fleet", fleet.toString(), "--host", "127.0.0.1", "--port", "0",
        "--grpc-port", Integer.toString(grpcPort), "--preflight=off");
  }

  /** Sends {@code text} to the gRPC port and reads until the router closes the connection. */
  private static void sendAndReadToEnd(int port, String text) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(text.getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[256];
      while (in.read(buffer) >= 0) {
        // the server's SETTINGS and GOAWAY; read until it closes
      }
    }
  }

  private static long count(Path file, String text) {
    try {
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8).stream()
          .filter(l -> l.contains(text)).count() : 0;
    } catch (IOException e) {
      return 0; // read again on the next poll
    }
  }

  /** A key shaped as {@code narwhal key} makes them: {@code nwk_<8-character id>_<43-character secret>}. */
  private static String newKey() {
    SecureRandom random = new SecureRandom();
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    StringBuilder id = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      id.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    byte[] secret = new byte[32];
    random.nextBytes(secret);
    return "nwk_" + id + "_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
  }

  /** A one-by-one fleet of the simulated engines; with a tenant holding {@code key} when given. */
  private Path fleetFile(String key) throws IOException {
    String tenants = "";
    if (key != null) {
      byte[] salt = new byte[16];
      new SecureRandom().nextBytes(salt);
      tenants = ",\n  \"tenants\": {\"list\": [{\"name\": \"search\", \"keys\": [\""
          + ApiKeyHash.of(key, salt).format() + "\"]}]}";
    }
    Path file = dir.resolve("fleet.json");
    Files.writeString(file, String.join("\n",
        "{",
        "  \"schema\": \"narwhal.fleet\",",
        "  \"schema_version\": 1,",
        "  \"model\": \"" + DemoFleet.MODEL + "\",",
        "  \"engines\": [",
        "    {\"iid\": \"p0\", \"url\": \"" + engines.engine("p0").baseUrl() + "\", \"role\": \"prefill\"},",
        "    {\"iid\": \"d0\", \"url\": \"" + engines.engine("d0").baseUrl() + "\", \"role\": \"decode\"}",
        "  ],",
        "  \"slo\": {\"ttft_s\": 2.0, \"tpot_s\": 0.1},",
        "  \"serving\": {\"prefill_timeout_s\": 30},",
        "  \"engine\": {\"first_token_timeout_s\": 30}" + tenants,
        "}"));
    return file;
  }
}
