package narwhal.it;

import static narwhal.testing.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The last line a router logs when it shuts down says how many requests were in flight and how it ended. */
class ShutdownLineTest {

  private final Logger serverLog = (Logger) LoggerFactory.getLogger("narwhal.server.RouterServer");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private Level levelBefore;

  @BeforeEach
  void capture() {
    levelBefore = serverLog.getLevel();
    serverLog.setLevel(Level.INFO); // this module's logback-test.xml keeps INFO out
    lines.start();
    serverLog.addAppender(lines);
  }

  @AfterEach
  void release() {
    serverLog.detachAppender(lines);
    serverLog.setLevel(levelBefore);
  }

  private String lastLine() {
    List<ILoggingEvent> events = List.copyOf(lines.list);
    assertThat(events).isNotEmpty();
    return events.get(events.size() - 1).getFormattedMessage();
  }

  @Test
  void aCleanDrain_endsWithTheDrainedLine() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start()) {
      assertThat(fleet.router.shutdownGracefully(Duration.ofSeconds(5))).isTrue();

      assertThat(lastLine()).isEqualTo("narwhal stopped: drained; 0 requests were in flight at shutdown and all ended");
    }
  }

  @Test
  void aCutDrain_saysHowManyWereCancelled() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, null)) {
      CompletableFuture.runAsync(() -> {
        try {
          fleet.client.stream("/v1/completions", "{\"prompt\": \"drain [[sim:silence-after=2,ms=5000,"
              + "phase=decode]]\", \"max_tokens\": 4, \"stream\": true}");
        } catch (RuntimeException e) {
          // the connection is closed under it: expected
        }
      });
      until("the stream to be in flight", () -> fleet.router.router().admission().inFlight() == 1);

      assertThat(fleet.router.shutdownGracefully(Duration.ofMillis(200))).isFalse();

      assertThat(lastLine()).isEqualTo("narwhal stopped: 1 requests were in flight at shutdown; 1 were still "
          + "running after 200 ms and were cancelled");
    }
  }
}
