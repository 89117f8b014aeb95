package narwhal.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import narwhal.openai.Json;
import narwhal.testing.ScriptedCompletionService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** Starts a front-end on an ephemeral port over a {@link ScriptedCompletionService}, per test. */
abstract class FrontEndTestSupport {

  static final long STARTED_EPOCH_SECONDS = 1_650_000_000L;

  private static EventLoopGroup boss;
  private static EventLoopGroup workers;

  ScriptedCompletionService service;
  HttpFrontEnd frontEnd;
  HttpClient client;

  @BeforeAll
  static void startGroups() {
    boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  }

  @AfterAll
  static void stopGroups() {
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** The options under test; port 0 is replaced by nothing (it is ephemeral). */
  HttpFrontEndOptions options() {
    return new HttpFrontEndOptions("127.0.0.1", 0, 4096, 1 << 20);
  }

  @BeforeEach
  void startFrontEnd() {
    service = new ScriptedCompletionService();
    // Scripted steps still reach a cancelled or aborted request, so late events test the front-end.
    service.runStepsAfterCancel(true);
    frontEnd =
        HttpFrontEnd.start(
            options(),
            service,
            boss,
            workers,
            NioServerSocketChannel.class,
            Clock.fixed(Instant.ofEpochSecond(STARTED_EPOCH_SECONDS), ZoneOffset.UTC));
    client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  @AfterEach
  void stopFrontEnd() {
    frontEnd.close();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + frontEnd.port() + path);
  }

  HttpResponse<String> post(String path, String body, String... headers) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode json(String text) {
    try {
      return Json.mapper().readTree(text);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  /** Polls {@code condition} every few milliseconds for up to 10 s. */
  /**
   * Waits until everything already queued on {@code call}'s event loop has run: what a test
   * asserting that nothing happened waits for, instead of sleeping.
   */
  static void drainLoop(narwhal.testing.ScriptedCompletionService.Call call) throws Exception {
    java.util.concurrent.CompletableFuture<Void> passed = new java.util.concurrent.CompletableFuture<>();
    call.loop.execute(() -> passed.complete(null));
    passed.get(10, TimeUnit.SECONDS);
  }

  static void await(String what, BooleanSupplier condition) {
    narwhal.testing.Poll.until(what, Duration.ofSeconds(10), condition);
  }
}
