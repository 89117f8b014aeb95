package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import narwhal.testing.ScriptedCompletionService.Call;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Header-read and idle timeouts over real sockets: connections that send nothing, trickle a head
 * or sit idle are closed and stop counting; a long stream is not cut. Nothing here takes an
 * admission seat.
 */
class ClientTimeoutsTest extends FrontEndTestSupport {

  private static final long HEADER_MS = 500;
  private static final long IDLE_MS = 700;

  @Override
  HttpFrontEndOptions options() {
    return super.options().withConnectionLimits(
        Duration.ofMillis(HEADER_MS), Duration.ofMillis(IDLE_MS), 100);
  }

  @Test
  void connectionThatSendsNothing_isClosedSilently_afterTheHeaderTimeout() throws Exception {
    long start = System.nanoTime();
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      await("connection counted", () -> frontEnd.openConnections() == 1);

      assertThat(http.serverClosed()).isTrue(); // EOF before any byte: no response at all
      assertThat(elapsedMs(start)).isGreaterThanOrEqualTo(HEADER_MS - 50);
    }
    await("connection released", () -> frontEnd.openConnections() == 0);
    assertThat(frontEnd.clientConnections().headerTimeouts()).isEqualTo(1);
    assertThat(service.tickets).isEmpty(); // no admission seat was ever taken
  }

  /**
   * A byte every 100 ms defeats a timer restarted per read; a byte every 1.5 s is the
   * slow-loris rate. Either way the head is cut at the total bound.
   */
  @ParameterizedTest
  @ValueSource(longs = {100, 1_500})
  void trickledHead_gets408AndIsClosed_atTheTotalHeaderTimeout(long gapMs) throws Exception {
    long start = System.nanoTime();
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      Thread trickler = new Thread(() -> trickle(http, "POST /v1/completions HTTP/1.1\r\nHost: t\r\n"
          + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", gapMs));
      trickler.setDaemon(true);
      trickler.start();

      RawHttpConnection.Response response = http.readResponse();

      assertThat(elapsedMs(start)).isBetween(HEADER_MS - 50, HEADER_MS + 5_000);
      assertThat(response.status()).isEqualTo(408);
      assertThat(response.headers()).containsEntry("connection", "close");
      assertThat(json(response.body()).path("error").path("code").asText()).isEqualTo("header_timeout");
      assertThat(http.serverClosed()).isTrue();
      trickler.interrupt();
    }
    await("connection released", () -> frontEnd.openConnections() == 0);
    assertThat(frontEnd.clientConnections().headerTimeouts()).isEqualTo(1);
    assertThat(service.tickets).isEmpty(); // no admission seat was ever taken
  }

  @Test
  void keptAliveConnection_servesRequestsBeforeTheIdleTimeout_thenIsClosedSilently() throws Exception {
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      for (int i = 0; i < 3; i++) {
        // Each pause is over half the idle timeout: together longer than it, each shorter.
        http.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n");
        assertThat(http.readResponse().status()).isEqualTo(200);
        narwhal.testing.Poll.pause(IDLE_MS / 2 + 50);
      }
      http.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(http.readResponse().status()).isEqualTo(200);
      long answered = System.nanoTime();

      assertThat(http.serverClosed()).isTrue();
      assertThat(elapsedMs(answered)).isGreaterThanOrEqualTo(IDLE_MS - 50);
    }
    await("connection released", () -> frontEnd.openConnections() == 0);
    assertThat(frontEnd.clientConnections().idleTimeouts()).isEqualTo(1);
    assertThat(frontEnd.clientConnections().headerTimeouts()).isZero();
  }

  @Test
  void longStream_outlastsBothTimeouts_uncut() throws Exception {
    int tokens = 8; // a token every 300 ms: 2.4 s, several times either timeout
    service.script(call -> {
      Runnable[] steps = new Runnable[tokens + 2];
      steps[0] = () -> call.sink.onStart(call.start());
      for (int i = 0; i < tokens; i++) {
        steps[i + 1] = () -> call.sink.onEvent(Events.completionToken("t"));
      }
      steps[tokens + 1] = call.sink::onComplete;
      call.sequence(300, steps);
    });
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", "{\"prompt\":\"x\",\"stream\":true}");

      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.status()).isEqualTo(200);
      assertThat(response.sseData()).hasSize(tokens + 1).last().isEqualTo("[DONE]");
      Call call = service.nextCall();
      assertThat(call.request.getStream()).isTrue();
      // Once the stream is over, the connection is idle like any other.
      assertThat(http.serverClosed()).isTrue();
    }
    assertThat(frontEnd.clientConnections().idleTimeouts()).isEqualTo(1);
    assertThat(frontEnd.clientConnections().headerTimeouts()).isZero();
  }

  private static void trickle(RawHttpConnection http, String text, long gapMs) {
    try {
      for (int i = 0; i < text.length(); i++) {
        http.send(text.substring(i, i + 1));
        narwhal.testing.Poll.pause(gapMs);
      }
    } catch (IOException | AssertionError e) {
      // The server closed the connection (or the test ended): the point of the test.
    }
  }

  private static long elapsedMs(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
